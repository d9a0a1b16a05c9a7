import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from '../../demo/e2e/harness.ts'
import { type RunningApp, startApp } from './app.ts'
import { CACHE_DIST_DIR } from './global-setup.ts'
import {
  APP_TOOLS,
  CHALLENGE_TOOLS,
  CHALLENGES_TOOLS,
  clientIds,
  lastTools,
  SETTINGS_TOOLS,
} from './tools.ts'

let browser: Browser
let app: RunningApp

beforeAll(async () => {
  ;[browser, app] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startApp({ cacheComponentsDir: CACHE_DIST_DIR }),
  ])
})
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

test('Cache Components: a segment hidden in <Activity> drops its tools and gets them back when shown', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const clientId = clientIds(demo.frames)[0]
  let from = demo.frames.length
  await demo.page.getByTestId('nav-settings').click()
  await demo.waitForTool('settings.updateCard', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...SETTINGS_TOOLS].sort())
  // The challenges page is still mounted, hidden: its DOM is there but not shown, its tools are gone.
  const list = demo.page.getByTestId('challenge-list')
  expect(await list.count()).toBe(1)
  expect(await list.isVisible()).toBe(false)

  from = demo.frames.length
  await demo.page.goBack()
  await demo.waitForTool('challenges.search', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...CHALLENGES_TOOLS].sort())
  expect(await demo.page.locator('#settings-heading').isVisible()).toBe(false)
  expect(await demo.page.locator('#settings-heading').count()).toBe(1)

  from = demo.frames.length
  await demo.page.goForward()
  await demo.waitForTool('settings.updateCard', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...SETTINGS_TOOLS].sort())
  expect(clientIds(demo.frames)).toEqual([clientId])
  await demo.close()
})

test('Cache Components: back to a dynamic segment re-shows its tools with its own params', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  let from = demo.frames.length
  await demo.page.locator('[data-testid="challenge-link"]', { hasText: 'Chess Openings' }).click()
  await demo.waitForTool('challenge.details', from)
  from = demo.frames.length
  await demo.page.getByTestId('challenge-next').click()
  await demo.page.waitForURL('**/challenges/c-marathon')
  await demo.waitForTool('challenge.details', from)
  expect((await demo.ask('Show the challenge details')).join('\n')).toContain('Marathon Training')
  from = demo.frames.length
  await demo.page.goBack()
  await demo.page.waitForURL('**/challenges/c-chess')
  await demo.waitForTool('challenge.details', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...CHALLENGE_TOOLS].sort())
  expect((await demo.ask('Show the challenge details')).join('\n')).toContain('Chess Openings')
  expect(clientIds(demo.frames)).toHaveLength(1)
  await demo.close()
})
