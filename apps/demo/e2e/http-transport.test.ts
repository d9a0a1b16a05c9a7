import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test, vi } from 'vitest'
import { type DemoServer, startDemoServer } from './server.ts'

let browser: Browser
let demoServer: DemoServer
let context: BrowserContext
let page: Page

beforeAll(async () => {
  ;[browser, demoServer] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startDemoServer(inject('staticDir')),
  ])
  context = await browser.newContext()
  page = await context.newPage()
})
afterAll(async () => {
  await context?.close()
  await browser?.close()
  await demoServer?.close()
})

const assistantCount = () => page.locator('[data-testid="chat-message"][data-role="assistant"]').count()

/** Types `text` into the chat and returns the agent's new messages once it is idle again. */
async function ask(text: string): Promise<string[]> {
  const before = await assistantCount()
  await page.getByTestId('chat-input').fill(text)
  await page.getByTestId('chat-send').click()
  await page.waitForFunction(
    (count) =>
      document.querySelectorAll('[data-testid="chat-message"][data-role="assistant"]').length > count &&
      !document.querySelector('[data-testid="chat-busy"]'),
    before,
    { timeout: 15_000 },
  )
  return (await page.locator('[data-testid="chat-message"][data-role="assistant"]').allInnerTexts()).slice(
    before,
  )
}

test('the demo over the HTTP transport: a call sent while its event stream is down arrives once after the resume', async () => {
  const streams: Request[] = []
  const sockets: string[] = []
  page.on('websocket', (ws) => sockets.push(ws.url()))
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/toolmark/events') streams.push(request)
  })
  await page.goto(new URL('/?transport=http', demoServer.url).href)
  await page.getByTestId('chat-input').waitFor({ state: 'attached' })
  const conversation = await page.evaluate(() => localStorage.getItem('toolmark-demo:conversation') ?? '')
  await vi.waitFor(async () =>
    expect((await demoServer.server.relay.page(conversation))?.tools.length).toBeGreaterThan(0),
  )
  expect(streams).toHaveLength(1) // one EventSource
  expect((await ask('Search for chess')).join('\n')).toContain('Chess Openings')

  // Hold the page's reconnect until the agent has sent its call into the dropped page connection.
  const request = vi.spyOn(demoServer.server.relay, 'request')
  let release!: () => void
  const issued = new Promise<void>((resolve) => {
    release = resolve
  })
  await page.route('**/toolmark/events*', async (route) => {
    await issued
    await route.continue()
  })
  demoServer.server.dropBridgeStreams()
  const reply = ask('Search for marathon')
  await vi.waitFor(() => expect(request).toHaveBeenCalled(), { timeout: 10_000 })
  release()
  // The call went only into the dropped page connection: it reached the page because the reconnect
  // resumed that connection (Last-Event-ID), not a new one (the call would have timed out there).
  expect((await reply).join('\n')).toContain('I found 1 challenge: Marathon Training')

  expect(streams).toHaveLength(2) // the first stream and the resumed one
  // Each request the agent made while the stream was down was answered by the page, once: a second run
  // would have sent a duplicate result, which the relay rejects.
  const outcomes = await Promise.all(request.mock.results.map((r) => r.value as ReturnType<typeof request>))
  expect(outcomes.map((o) => [o.timedOut, o.result.status])).toEqual(outcomes.map(() => [false, 'ok']))
  expect(sockets).toEqual([]) // no WebSocket at all
  expect(demoServer.rejections).toEqual([])
  request.mockRestore()
})
