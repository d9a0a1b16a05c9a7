import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type BundlePage, openBundle } from '../../../forms/src/__tests__/support/browser.ts'

/* Real Chromium: a two-page app with a tour started by an agent through `tour.start`. */

interface W {
  tm: { call(n: string, i: unknown, o: { caller: string }): Promise<unknown>; rev: number }
  start(id: string): Promise<void>
  outcomes: unknown[]
  confirms: string[]
  approve(): void
  reject(): void
}

const HTML = `<!doctype html><html><body>
<input id="chat" aria-label="Chat"><main id="app"></main>
<script type="module" src="/page.js"></script></body></html>`

let b: BundlePage
beforeAll(async () => {
  b = await openBundle(fileURLToPath(new URL('./page.ts', import.meta.url)), HTML)
}, 60_000)
afterAll(() => b?.close())
beforeEach(() => b.reload())

const live = () => b.page.textContent('[data-toolmark-tour] [aria-live=polite]')
const focused = () =>
  b.page.evaluate(() => document.activeElement?.getAttribute('data-action') ?? document.activeElement?.id)

describe('tour runner in Chromium', () => {
  it('an agent starts it; it highlights anchors, survives a navigation, shows redacted state and waits for the inline confirmation', async () => {
    const { page } = b
    await page.focus('#chat')
    const layout = () =>
      page.evaluate(() =>
        JSON.stringify([document.body.scrollHeight, document.getElementById('app')!.getBoundingClientRect()]),
      )
    const before = await layout()
    const started = await page.evaluate(() =>
      (window as unknown as W).tm.call('tour.start', { tour: 'create-challenge' }, { caller: 'inapp' }),
    )
    expect(started).toEqual({ status: 'ok', data: { started: 'create-challenge', steps: 3 } })
    await page.waitForSelector('[data-toolmark-tour][role=dialog]')
    expect(await live()).toBe('Open the challenges page.')
    expect(await page.textContent('[data-toolmark-tour] h2')).toBe('Create a challenge · Step 1 of 3')
    expect(await focused()).toBe('run')
    expect(await layout()).toBe(before) // the overlay is fixed: nothing moved
    const [hl, anchor] = await page.evaluate(() =>
      [document.querySelector('[data-toolmark-tour-highlight]')!, document.querySelector('#open')!].map(
        (e) => {
          const r = e.getBoundingClientRect()
          return [r.top, r.left, r.width, r.height]
        },
      ),
    )
    expect(hl).toEqual(anchor)

    // The user clicks "Do it": home.open navigates; step 2 waits for its tool, then runs itself.
    await page.click('[data-toolmark-tour] [data-action=run]')
    await page.waitForFunction(() =>
      document.querySelector('[data-toolmark-tour] h2')?.textContent?.endsWith('Step 3 of 3'),
    )
    expect(await page.inputValue('input[name=title]')).toBe('Robots')
    await page.fill('input[name=secret]', 'hunter2-secret')
    await page.evaluate(() => new Promise((r) => setTimeout(r, 20)))
    // The highlighted tool's state is shown with the password redacted.
    const dialogText = await page.textContent('[data-toolmark-tour]')
    expect(dialogText).toContain('title: Robots')
    expect(dialogText).not.toContain('hunter2')

    // Submit asks for the inline confirmation; the tour waits for it.
    await page.click('[data-toolmark-tour] [data-action=run]')
    await page.waitForFunction(() => (window as unknown as W).confirms.length === 1)
    expect(await live()).toContain('Working')
    expect(await page.isDisabled('[data-toolmark-tour] [data-action=next]')).toBe(true)
    await page.evaluate(() => (window as unknown as W).approve())
    await page.waitForFunction(() => (window as unknown as W).outcomes.length === 1)
    expect(await page.evaluate(() => (window as unknown as W).outcomes)).toEqual([
      { status: 'completed', tour: 'create-challenge' },
    ])
    expect(await page.$('[data-toolmark-tour]')).toBeNull()
    expect(await page.$('[data-toolmark-tour-highlight]')).toBeNull()
    expect(await focused()).toBe('chat') // focus went back where it was
  })

  it('a rejected confirmation stays on the step; Escape leaves the tour and restores focus', async () => {
    const { page } = b
    await page.focus('#chat')
    void page.evaluate(() => (window as unknown as W).start('create-challenge'))
    await page.waitForSelector('[data-toolmark-tour]')
    await page.click('[data-toolmark-tour] [data-action=run]')
    await page.waitForFunction(() =>
      document.querySelector('[data-toolmark-tour] h2')?.textContent?.endsWith('Step 3 of 3'),
    )
    await page.click('[data-toolmark-tour] [data-action=run]')
    await page.waitForFunction(() => (window as unknown as W).confirms.length === 1)
    await page.evaluate(() => (window as unknown as W).reject())
    await page.waitForFunction(() =>
      document.querySelector('[aria-live=polite]')?.textContent?.includes('did not work'),
    )
    expect(await page.textContent('[data-toolmark-tour] h2')).toContain('Step 3 of 3')
    await page.keyboard.press('Escape')
    await page.waitForFunction(() => (window as unknown as W).outcomes.length === 1)
    expect(await page.evaluate(() => (window as unknown as W).outcomes)).toEqual([
      { status: 'exited', tour: 'create-challenge', step: 2 },
    ])
    expect(await page.$('[data-toolmark-tour]')).toBeNull()
    expect(await focused()).toBe('chat')
  })

  it("ends cleanly when a step's tool never appears", async () => {
    const { page } = b
    await page.evaluate(() => (window as unknown as W).start('broken'))
    expect(await page.evaluate(() => (window as unknown as W).outcomes)).toEqual([
      { status: 'tool_gone', tour: 'broken', step: 0, tool: 'nowhere.tool' },
    ])
    expect(await page.$('[data-toolmark-tour]')).toBeNull()
  })

  it('the dialog never covers an element it is told to avoid (a chat input at the bottom right)', async () => {
    const { page } = b
    await page.setViewportSize({ width: 1024, height: 700 })
    await page.evaluate(() => {
      const chat = document.getElementById('chat')!
      chat.style.cssText = 'position:fixed;right:8px;bottom:8px;width:360px;height:40px'
    })
    const box = (selector: string) => page.locator(selector).boundingBox()
    const covers = async () => {
      const [d, c] = [(await box('[data-toolmark-tour]'))!, (await box('#chat'))!]
      return d.x < c.x + c.width && c.x < d.x + d.width && d.y < c.y + c.height && c.y < d.y + d.height
    }
    // Not marked: the dialog sits at the bottom right, over the input.
    await page.evaluate(() => {
      void (window as unknown as W).start('create-challenge')
    })
    await page.waitForSelector('[data-toolmark-tour]')
    expect(await covers()).toBe(true)
    await page.keyboard.press('Escape')
    await page.waitForSelector('[data-toolmark-tour]', { state: 'detached' })
    // Marked: every step, and after a resize, it sits where the input stays free.
    await page.evaluate(() => document.getElementById('chat')!.setAttribute('data-avoid', ''))
    await page.evaluate(() => {
      void (window as unknown as W).start('create-challenge')
    })
    await page.waitForSelector('[data-toolmark-tour]')
    expect(await covers()).toBe(false)
    expect(await page.getAttribute('[data-toolmark-tour]', 'data-toolmark-tour-corner')).toBe('bottom-left')
    await page.click('[data-toolmark-tour] [data-action=run]')
    // Steps 2 (filled by itself) and 3, on the next page.
    await expect.poll(live).toContain('Submit it')
    expect(await covers()).toBe(false)
    await page.setViewportSize({ width: 420, height: 700 })
    await expect.poll(covers).toBe(false)
    await page.setViewportSize({ width: 1024, height: 700 })
  })
})
