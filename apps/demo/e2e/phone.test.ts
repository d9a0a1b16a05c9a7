import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium, type Locator, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { DemoPage } from './harness.ts'
import { type DemoServer, startDemoServer } from './server.ts'

/**
 * The demo at a desktop, a phone and a small phone viewport: nothing overflows sideways, the list is
 * visible, a card can be approved, and the Undo bar never covers a card or the chat input. One
 * screenshot per viewport (the Delete card open) goes to `e2e/__screenshots__`, or to
 * `TOOLMARK_SCREENSHOT_DIR` (see `scripts/screenshots.sh`, which refreshes the README's).
 */
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800, phone: false },
  { name: 'phone', width: 390, height: 844, phone: true },
  { name: 'small-phone', width: 320, height: 640, phone: true },
] as const

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

type Box = { x: number; y: number; width: number; height: number }

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox()
  if (!found) throw new Error(`${locator} is not visible`)
  return found
}
const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

/** Every visible scroll container (and the page itself) is at most as wide as its box. */
async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [document.documentElement, ...document.querySelectorAll<HTMLElement>('main, .chat, .chat-log')]
      .filter((el) => el.getClientRects().length > 0 && el.scrollWidth > el.clientWidth)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`),
  )
}

/** Inside the viewport from left to right (a clipped Send or Delete button fails this). */
async function expectInside(page: Page, locator: Locator): Promise<void> {
  const b = await box(locator)
  const width = page.viewportSize()?.width ?? 0
  expect(b.x).toBeGreaterThanOrEqual(0)
  expect(b.x + b.width).toBeLessThanOrEqual(width)
}

describe.each(VIEWPORTS)('$name ($width × $height)', (viewport) => {
  test('usable: list visible, a card approved, the Undo bar beside (never over) the card and input', async () => {
    const demo = await DemoPage.open(browser, demoServer.url, '/', {
      viewport: { width: viewport.width, height: viewport.height },
      isMobile: viewport.phone,
      hasTouch: viewport.phone,
    })
    const { page } = demo
    try {
      expect(await sidewaysOverflow(page)).toEqual([])
      const items = page.getByTestId('challenge-item')
      expect(await items.count()).toBe(3)
      for (const item of await items.all()) {
        const b = await box(item)
        expect(b.height).toBeGreaterThan(40)
        expect(b.width).toBeGreaterThanOrEqual(Math.min(viewport.width - 48, 600))
        await expectInside(page, item)
      }

      if (viewport.phone) {
        // One pane at a time: the chat is a tab, not a squeezed column.
        expect(await page.getByTestId('chat-input').isVisible()).toBe(false)
        await page.getByTestId('pane-chat').click()
        expect(await page.getByTestId('challenge-list').isVisible()).toBe(false)
      }
      await expectInside(page, page.getByTestId('chat-send'))
      await demo.ask('Delete the challenge Marathon Training')
      const card = page.locator('[data-testid="confirm-card"][data-tool="challenges.delete"]')
      await card.waitFor()
      await expectInside(page, card.getByTestId('confirm-delete'))
      await expectInside(page, card.getByTestId('confirm-reject'))
      expect(await sidewaysOverflow(page)).toEqual([])
      await page.screenshot({ path: join(SHOTS, `demo-${viewport.name}.png`) })

      await card.getByTestId('confirm-delete').click()
      const toast = page.getByTestId('undo-toast')
      await toast.waitFor()
      await expectInside(page, toast)
      expect(overlap(await box(toast), await box(page.getByTestId('chat-input')))).toBe(false)
      expect(overlap(await box(toast), await box(page.getByTestId('chat-send')))).toBe(false)

      // A second card while the Undo bar is still there: neither covers the other.
      await demo.ask('Create a challenge called Robotics')
      const create = page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')
      await create.waitFor()
      await create.scrollIntoViewIfNeeded()
      expect(overlap(await box(toast), await box(create))).toBe(false)
      expect(overlap(await box(toast), await box(page.getByTestId('chat-input')))).toBe(false)
      expect(await sidewaysOverflow(page)).toEqual([])
      await create.getByTestId('confirm-approve').click()
      await create.waitFor({ state: 'detached' })

      if (viewport.phone) await page.getByTestId('pane-page').click()
      const robotics = page.locator('[data-testid="challenge-item"][data-name="Robotics"]')
      await robotics.waitFor()
      await expectInside(page, robotics)
      expect(await demo.challengeNames()).toEqual(['Chess Openings', 'Watercolor Sketching', 'Robotics'])
      await page.getByTestId('undo-delete').click()
      await toast.waitFor({ state: 'detached' })
      expect(await demo.challengeNames()).toContain('Marathon Training')
      expect(await sidewaysOverflow(page)).toEqual([])
    } finally {
      await demo.close()
    }
  })
})
