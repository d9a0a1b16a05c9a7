import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import type { DemoPage } from './harness.ts'

/** The viewports both demos are checked at: a desktop, a phone and a small phone. */
export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800, phone: false },
  { name: 'phone', width: 390, height: 844, phone: true },
  { name: 'small-phone', width: 320, height: 640, phone: true },
] as const

/** A bounding box in CSS pixels. */
export type Box = { x: number; y: number; width: number; height: number }

/** The visible box of `locator` (throws when it is not visible). */
export async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox()
  if (!found) throw new Error(`${locator} is not visible`)
  return found
}
/** Whether two boxes share any area. */
export const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

/** Every visible scroll container (and the page itself) is at most as wide as its box. */
export async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [document.documentElement, ...document.querySelectorAll<HTMLElement>('main, .chat, .chat-log')]
      .filter((el) => el.getClientRects().length > 0 && el.scrollWidth > el.clientWidth)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`),
  )
}

/** Inside the viewport from left to right (a clipped Send or Delete button fails this). */
export async function expectInside(page: Page, locator: Locator): Promise<void> {
  const b = await box(locator)
  const width = page.viewportSize()?.width ?? 0
  expect(b.x).toBeGreaterThanOrEqual(0)
  expect(b.x + b.width).toBeLessThanOrEqual(width)
}

/** One of `VIEWPORTS`. */
export type Viewport = (typeof VIEWPORTS)[number]

/**
 * The layout check both demos run at each viewport, on a fresh challenges page: nothing overflows
 * sideways, the list is visible, on a phone the page and the chat are tabs, a card's buttons and Send
 * are inside the viewport, a card can be approved, and the Undo bar never covers a card or the chat
 * input. `screenshot`, when given, is where the page is captured with the Delete card open.
 */
export async function usableAt(demo: DemoPage, viewport: Viewport, screenshot?: string): Promise<void> {
  const { page } = demo
  expect(await sidewaysOverflow(page)).toEqual([])
  const items = page.getByTestId('challenge-item')
  expect(await items.count()).toBe(3)
  for (const item of await items.all()) {
    const b = await box(item)
    expect(b.height).toBeGreaterThan(40)
    expect(b.width).toBeGreaterThanOrEqual(Math.min(viewport.width - 48, 600))
    await expectInside(page, item)
  }

  // The chat never covers the list: beside it on a wide screen, hidden behind its tab on a phone.
  const chat = page.locator('aside.chat')
  if (await chat.isVisible())
    expect(overlap(await box(chat), await box(page.getByTestId('challenge-list')))).toBe(false)
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
  if (screenshot) await page.screenshot({ path: screenshot })

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
}
