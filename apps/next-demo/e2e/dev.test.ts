import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from '../../demo/e2e/harness.ts'
import { type RunningApp, startApp } from './app.ts'
import { APP_TOOLS, CHALLENGES_TOOLS, clientIds, lastTools, manifests, SETTINGS_TOOLS } from './tools.ts'

let browser: Browser
let app: RunningApp

beforeAll(async () => {
  ;[browser, app] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startApp({ dev: true }),
  ])
})
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

test('next dev (StrictMode, dev registry): one bridge stream, one clientId, exactly one registration per tool', async () => {
  const context = await browser.newContext()
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  const streams: string[] = []
  const isStream = (url: string) => new URL(url).pathname === '/toolmark/events'
  page.on('request', (request) => {
    if (isStream(request.url())) streams.push(request.url())
  })
  // Let the dev server compile both routes before the harness waits on them.
  for (const path of ['/settings', '/challenges']) {
    // next dev compiles each route on its first request: allow for a slow, shared machine.
    await Promise.all([
      page.waitForEvent('request', { predicate: (request) => isStream(request.url()), timeout: 90_000 }),
      page.goto(new URL(path, app.url).href, { timeout: 90_000 }),
    ])
    await page.getByTestId('chat-input').waitFor({ timeout: 60_000 })
  }
  await page.close()
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  demo.page.on('pageerror', (error) => problems.push(error.message))
  const dev = await demo.page.evaluate(() => {
    const tm = (
      window as unknown as Record<symbol, { dev: boolean; manifest(): { tools: Array<{ name: string }> } }>
    )[Symbol.for('@toolmark/next.tab')]!
    return { dev: tm.dev, names: tm.manifest().tools.map((t) => t.name) }
  })
  expect(dev.dev).toBe(true)
  expect(dev.names.sort()).toEqual([...APP_TOOLS, ...CHALLENGES_TOOLS].sort())
  const from = demo.frames.length
  await demo.page.getByTestId('nav-settings').click()
  await demo.waitForTool('settings.updateCard', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...SETTINGS_TOOLS].sort())
  for (const m of manifests(demo.frames)) expect(new Set(m.names).size).toBe(m.names.length)
  expect(clientIds(demo.frames)).toHaveLength(1)
  expect(problems.filter((p) => /duplicate|toolmark/i.test(p))).toEqual([])
  // One bridge event stream per page load, StrictMode's simulated remount included.
  expect(streams).toHaveLength(2)
  await demo.close()
  await context.close()
}, 180_000)
