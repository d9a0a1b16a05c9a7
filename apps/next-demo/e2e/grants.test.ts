import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from '../../demo/e2e/harness.ts'
import { type RunningApp, startApp } from './app.ts'

/*
 * Remembered approvals (grants) and readable context in the Next demo, in Chromium, over the HTTP
 * transport of `next start` with the embedded offline agent. `challenges.create` is grantable;
 * `challenges.delete` is destructive and never is. The route handlers keep grants per user (the
 * browser context's session).
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

/** The create tool's description as built, and as a later release of the page words it. */
const DESCRIPTION = 'Create a new challenge with a name and an optional description.'
const CHANGED = 'Create one new challenge with a name and an optional description.'

/** The user's grants as the server keeps them, as `[tool, caller]` pairs. */
async function serverGrants(demo: DemoPage): Promise<string[][]> {
  const response = await demo.context.request.get(new URL('/api/grants', demo.baseUrl).href)
  const body = (await response.json()) as { grants: Array<{ tool: string; caller: string }> }
  return body.grants.map((g) => [g.tool, g.caller])
}

test('"always" stops the asking for that tool only; a changed tool asks again; Revoke restores asking', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const createCard = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')

  // 1. The grantable tool's card offers the three choices; the user picks "always".
  const asked = demo.ask('Create a challenge called Robotics')
  await createCard.waitFor()
  const choices = createCard.getByTestId('confirm-remember').getByRole('radio')
  expect(await choices.evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual([
    'once',
    'conversation',
    'days',
  ])
  await createCard.getByRole('radio', { name: 'Always allow for 30 days' }).check()
  await createCard.getByTestId('confirm-approve').click()
  await asked
  expect(await demo.challengeNames()).toContain('Robotics')
  await demo.page.getByTestId('chat-grants').locator('summary').click()
  const grantRows = demo.page.getByTestId('grants').locator('li')
  await expect.poll(() => grantRows.count()).toBe(1)
  expect(await grantRows.first().textContent()).toContain('Create challenge')
  expect(await serverGrants(demo)).toEqual([['challenges.create', 'inapp']])

  // 2. The same tool again runs at once: no card.
  await demo.countCards()
  await demo.ask('Create a challenge called Astronomy')
  expect(await demo.challengeNames()).toContain('Astronomy')
  expect(await demo.cardsSeen()).toEqual([])

  // 3. Another tool still asks (a deletion, which can never be remembered: its card offers no choice).
  const deleted = demo.ask('Delete the challenge Marathon Training')
  const deleteCard = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.delete"]')
  await deleteCard.waitFor()
  expect(await deleteCard.getByTestId('confirm-remember').count()).toBe(0)
  await deleteCard.getByTestId('confirm-reject').click()
  await deleted
  expect(await demo.challengeNames()).toContain('Marathon Training')

  // 4. A new release of the page words the tool differently: the grant was for what the tool said, so it asks.
  let rewritten = 0
  await demo.page.route(/\/_next\/static\/chunks\/.*\.js$/, async (route) => {
    const response = await route.fetch()
    const body = await response.text()
    if (body.includes(DESCRIPTION)) rewritten++
    // Not kept in the browser's cache: the release after it is the original again.
    const headers = { ...response.headers(), 'cache-control': 'no-store' }
    await route.fulfill({ response, headers, body: body.replaceAll(DESCRIPTION, CHANGED) })
  })
  await demo.reload()
  expect(rewritten).toBeGreaterThan(0)
  await expect.poll(() => demo.toolDescription('challenges.create')).toContain(CHANGED)
  const changedAsk = demo.ask('Create a challenge called Gardening')
  await createCard.waitFor()
  await createCard.getByTestId('confirm-reject').click()
  await changedAsk
  expect(await demo.challengeNames()).not.toContain('Gardening')

  // The tool as it was still runs without a card: the grant is untouched.
  await demo.page.unrouteAll()
  await demo.reload()
  await expect.poll(() => demo.toolDescription('challenges.create')).toContain(DESCRIPTION)
  await demo.countCards()
  await demo.ask('Create a challenge called Cooking')
  expect(await demo.challengeNames()).toContain('Cooking')
  expect(await demo.cardsSeen()).toEqual([])

  // 5. Revoke in the chat's list: the tool asks again.
  await demo.page.getByTestId('chat-grants').locator('summary').click()
  await demo.page.getByRole('button', { name: 'Revoke Create challenge' }).click()
  await demo.page.getByTestId('grants-empty').waitFor()
  expect(await serverGrants(demo)).toEqual([])
  const revokedAsk = demo.ask('Create a challenge called Knitting')
  await createCard.waitFor()
  await createCard.getByTestId('confirm-approve').click()
  await revokedAsk
  expect(await demo.challengeNames()).toContain('Knitting')
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
