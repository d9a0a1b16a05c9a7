import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, inject, test } from 'vitest'
import { DemoPage } from './harness.ts'
import { usableAt, VIEWPORTS } from './layout.ts'
import { type DemoServer, startDemoServer } from './server.ts'

/**
 * The demo at a desktop, a phone and a small phone viewport: nothing overflows sideways, the list is
 * visible, a card can be approved, and the Undo bar never covers a card or the chat input. One
 * screenshot per viewport (the Delete card open) goes to `e2e/__screenshots__`, or to
 * `TOOLMARK_SCREENSHOT_DIR` (see `scripts/screenshots.sh`, which refreshes the README's).
 */

const SHOTS =
  process.env.TOOLMARK_SCREENSHOT_DIR ?? fileURLToPath(new URL('./__screenshots__', import.meta.url))

let browser: Browser
let demoServer: DemoServer

beforeAll(async () => {
  ;[browser, demoServer] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startDemoServer(inject('staticDir')),
  ])
  mkdirSync(SHOTS, { recursive: true })
})
afterAll(async () => {
  await browser?.close()
  await demoServer?.close()
})

describe.each(VIEWPORTS)('$name ($width × $height)', (viewport) => {
  test('usable: list visible, a card approved, the Undo bar beside (never over) the card and input', async () => {
    const demo = await DemoPage.open(browser, demoServer.url, '/', {
      viewport: { width: viewport.width, height: viewport.height },
      isMobile: viewport.phone,
      hasTouch: viewport.phone,
    })
    try {
      await usableAt(demo, viewport, join(SHOTS, `demo-${viewport.name}.png`))
    } finally {
      await demo.close()
    }
  })
})
