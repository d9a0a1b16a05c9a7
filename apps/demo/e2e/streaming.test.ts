import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from './harness.ts'
import { type DemoServer, startDemoServer } from './server.ts'

/*
 * Streamed replies and tool parts in the demo's chat, in Chromium: the offline agent streams its reply in
 * chunks (80 ms apart by default), the server sends the text as it comes, the page calls show as they run.
 */

let browser: Browser
let demoServer: DemoServer
let tab: DemoPage

beforeAll(async () => {
  ;[browser, demoServer] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startDemoServer(inject('staticDir')),
  ])
  tab = await DemoPage.open(browser, demoServer.url)
})
afterAll(async () => {
  await tab?.close()
  await browser?.close()
  await demoServer?.close()
})

test('the first words of the reply appear while the agent still works, and the call shows running then done', async () => {
  const demo = tab
  await demo.fresh()
  // Every state a page call of the chat shows, in order, as the DOM changes (nothing is missed between polls).
  await demo.page.evaluate(() => {
    const seen: string[] = []
    const streamedWhileBusy: string[] = []
    Object.assign(window, { __seen: seen, __streamedWhileBusy: streamedWhileBusy })
    const record = () => {
      for (const el of document.querySelectorAll<HTMLElement>(
        '[data-testid="chat-tool"] [data-state], [data-testid="chat-message"][data-role="tool"][data-state]',
      )) {
        const entry = `${el.dataset.tool ?? el.getAttribute('title') ?? ''}:${el.dataset.state}`
        if (seen.at(-1) !== entry) seen.push(entry)
      }
      const streaming = document.querySelector('[data-testid="chat-streaming"] .text')?.textContent
      if (streaming && document.querySelector('[data-testid="chat-busy"]')) streamedWhileBusy.push(streaming)
    }
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    })
  })

  const reply = (await demo.ask('Search for chess')).join('\n')
  expect(reply).toContain('Chess Openings')
  const { seen, streamedWhileBusy } = await demo.page.evaluate(() => {
    const w = window as unknown as { __seen: string[]; __streamedWhileBusy: string[] }
    return { seen: w.__seen, streamedWhileBusy: w.__streamedWhileBusy }
  })
  // The reply's first words were on screen before the turn ended, and they are how the reply starts.
  expect(streamedWhileBusy.length).toBeGreaterThan(0)
  const first = streamedWhileBusy[0]!
  expect(first.length).toBeLessThan(reply.length)
  expect(
    reply
      .replace(/^Agent/, '')
      .trimStart()
      .startsWith(first.trim()),
  ).toBe(true)
  // The search showed as running, then done (on its tool line).
  const states = seen.map((s) => s.split(':').at(-1))
  expect(states).toContain('running')
  expect(states.lastIndexOf('done')).toBeGreaterThan(states.indexOf('running'))
  expect(
    await demo.page.locator('[data-testid="chat-message"][data-role="tool"][data-state="done"]').count(),
  ).toBe(1)
})

test('a slow tool shows its progress while it runs, then its result', async () => {
  const demo = tab
  await demo.fresh()
  // Every progress the chat shows, as the DOM changes.
  await demo.page.evaluate(() => {
    const shown: string[] = []
    Object.assign(window, { __progress: shown })
    new MutationObserver(() => {
      const el = document.querySelector<HTMLElement>('[data-testid="tool-progress"]')
      const text = el?.textContent?.trim()
      const value = el?.querySelector('progress')?.getAttribute('value')
      const entry = text ? `${value ?? ''} ${text}` : undefined
      if (entry && shown.at(-1) !== entry) shown.push(entry)
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
  })
  const reply = (await demo.ask('Export the challenges to CSV')).join('\n')
  const shown = await demo.page.evaluate(() => (window as unknown as { __progress: string[] }).__progress)
  // The chat showed the export running with its progress, one step per challenge, before its result.
  expect(shown).toEqual([
    '0.3333333333333333 Exported 1 of 3',
    '0.6666666666666666 Exported 2 of 3',
    '1 Exported 3 of 3',
  ])
  // Once the call ended, its part shows done and no progress.
  await expect.poll(() => demo.page.locator('[data-testid="tool-progress"]').count()).toBe(0)
  expect(
    await demo.page
      .locator(
        '[data-testid="chat-message"][data-role="tool"][data-state="done"][title="Export challenges to CSV"]',
      )
      .count(),
  ).toBe(1)
  expect(reply).toContain('rows 3')
})
