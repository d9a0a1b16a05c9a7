import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from '../../demo/e2e/harness.ts'
import { type RunningApp, startApp } from './app.ts'

/*
 * Streamed replies and a slow tool's progress in the Next demo's chat, in Chromium, over the HTTP
 * transport of `next start`: the offline agent streams its reply in chunks, and `challenges.export`
 * reports its progress through the bridge's progress extension while it runs.
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

test('the first words of the reply appear while the agent still works', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  // Every streamed text shown while the chat says the agent is busy, as the DOM changes.
  await demo.page.evaluate(() => {
    const streamedWhileBusy: string[] = []
    Object.assign(window, { __streamedWhileBusy: streamedWhileBusy })
    new MutationObserver(() => {
      const streaming = document.querySelector('[data-testid="chat-streaming"] .text')?.textContent
      if (streaming && document.querySelector('[data-testid="chat-busy"]')) streamedWhileBusy.push(streaming)
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
  })
  const reply = (await demo.ask('Search for chess')).join('\n')
  expect(reply).toContain('Chess Openings')
  const streamed = await demo.page.evaluate(
    () => (window as unknown as { __streamedWhileBusy: string[] }).__streamedWhileBusy,
  )
  // The reply's first words were on screen before the turn ended, and they are how the reply starts.
  expect(streamed.length).toBeGreaterThan(0)
  const first = streamed[0]!
  expect(first.length).toBeLessThan(reply.length)
  expect(
    reply
      .replace(/^Agent/, '')
      .trimStart()
      .startsWith(first.trim()),
  ).toBe(true)
  await demo.close()
})

test('a slow tool shows its progress in the chat while it runs, then its result, and no progress after', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  // The page offered the progress extension (beside the context extension) and the server took it.
  const offer = await demo.waitForFrame((f) => f.direction === 'sent' && f.message.type === 'extensions')
  expect(offer.message.offer).toContain('progress')
  const accept = await demo.waitForFrame((f) => f.direction === 'received' && f.message.type === 'extensions')
  expect(accept.message.accept).toContain('progress')
  // What the chat shows, in order as the DOM changes: each progress of a running call, and the export's
  // call ending (its tool line done).
  await demo.page.evaluate(() => {
    const timeline: string[] = []
    let shown: string | undefined
    Object.assign(window, { __timeline: timeline })
    new MutationObserver(() => {
      const el = document.querySelector<HTMLElement>('[data-testid="tool-progress"]')
      const text = el?.textContent?.trim()
      const value = el?.querySelector('progress')?.getAttribute('value')
      const entry = text ? `${value ?? ''} ${text}` : undefined
      // Once the call is done, any progress on screen is one too many.
      if (entry && (entry !== shown || timeline.includes('done'))) timeline.push(entry)
      shown = entry
      const done = document.querySelector(
        '[data-testid="chat-message"][data-role="tool"][data-state="done"][title="Export challenges to CSV"]',
      )
      if (done && !timeline.includes('done')) timeline.push('done')
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
  })
  const from = demo.frames.length
  const reply = (await demo.ask('Export the challenges to CSV')).join('\n')
  expect(reply).toContain('rows 3')
  // Give a late progress event the time to show, should one come.
  await demo.page.waitForTimeout(500)
  const timeline = await demo.page.evaluate(() => (window as unknown as { __timeline: string[] }).__timeline)
  // One step per challenge, all before the call's result, and nothing once it ended.
  expect(timeline).toEqual([
    '0.3333333333333333 Exported 1 of 3',
    '0.6666666666666666 Exported 2 of 3',
    '1 Exported 3 of 3',
    'done',
  ])
  expect(await demo.page.locator('[data-testid="tool-progress"]').count()).toBe(0)
  // On the wire: the page sent its progress for the export call before that call's result.
  const call = demo.frames
    .slice(from)
    .find(
      (f) =>
        f.direction === 'received' && f.message.type === 'call' && f.message.tool === 'challenges.export',
    )
  expect(call).toBeDefined()
  const sent = demo.frames
    .slice(from)
    .filter((f) => f.direction === 'sent' && f.message.id === call?.message.id)
    .map((f) => f.message.type)
  expect(sent.at(-1)).toBe('result')
  expect(sent.slice(0, -1).length).toBeGreaterThan(0)
  expect(new Set(sent.slice(0, -1))).toEqual(new Set(['progress']))
  await demo.close()
})
