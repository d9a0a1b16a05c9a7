import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { grantScenario } from '../../demo/e2e/grants-scenario.ts'
import { DemoPage } from '../../demo/e2e/harness.ts'
import { type RunningApp, startApp } from './app.ts'

/*
 * Remembered approvals (grants) and readable context in the Next demo, in Chromium, over the HTTP
 * transport of `next start` with the embedded offline agent. The grants scenario is the Vite demo's
 * too (apps/demo/e2e/grants-scenario.ts); the route handlers keep grants per user.
 */

let browser: Browser
let app: RunningApp

beforeAll(async () => {
  ;[browser, app] = await Promise.all([chromium.connect(inject('browserWSEndpoint')), startApp()])
})
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

test('"always" stops the asking for that tool only; a changed tool asks again; Revoke restores asking', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  await grantScenario(demo, /\/_next\/static\/chunks\/.*\.js$/)
  await demo.close()
}, 60_000)

test('the challenge open reaches the server as page context, and follows the user to the next one', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  // The page offered the context extension and the server took it.
  const offer = await demo.waitForFrame((f) => f.direction === 'sent' && f.message.type === 'extensions')
  expect(offer.message.offer).toContain('context')
  const accept = await demo.waitForFrame((f) => f.direction === 'received' && f.message.type === 'extensions')
  expect(accept.message.accept).toContain('context')

  /** The value of `challenge.current` in the next context message the page sends from frame `from` on. */
  const sentContext = async (name: string, from: number) => {
    const frame = await demo.waitForFrame(
      (f) =>
        f.direction === 'sent' &&
        f.message.type === 'context' &&
        (f.message.entries as Array<{ name: string; value: { name?: string } | null }>).some(
          (e) => e.name === 'challenge.current' && e.value?.name === name,
        ),
      10_000,
      from,
    )
    return (frame.message.entries as Array<{ name: string; value: unknown }>).find(
      (e) => e.name === 'challenge.current',
    )?.value
  }

  let from = demo.frames.length
  await demo.page.locator('[data-testid="challenge-item"][data-name="Chess Openings"] a').click()
  await demo.page.getByTestId('challenge-page').waitFor()
  expect(await sentContext('Chess Openings', from)).toMatchObject({ id: 'c-chess', name: 'Chess Openings' })

  from = demo.frames.length
  await demo.page.getByTestId('challenge-next').click()
  expect(await sentContext('Marathon Training', from)).toMatchObject({ id: 'c-marathon' })
  // The server took every context message: it answered none of them with an error.
  expect(demo.frames.filter((f) => f.direction === 'received' && f.message.type === 'error')).toEqual([])
  await demo.close()
})
