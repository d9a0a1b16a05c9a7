import { randomUUID } from 'node:crypto'
import type { AgentToPageMessage } from '@toolmark/protocol'
import type { EventSourceMessage } from 'eventsource-parser'
import { describe, expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { Browser, readEvents } from '../../__tests__/support/http-client.ts'
import type { HttpLink } from '../../__tests__/support/page-links.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { testServers } from '../../__tests__/support/test-server.ts'
import { TIMEOUT_RESULT } from '../../relay/relay.ts'
import { manualClock } from '../../shared/clock.ts'
import { REPLAY_WINDOW, RESUME_GRACE_MS } from '../bridge-http.ts'

const DEADLINE = 15_000
const readTool = fakeTool('notes.read', 'Read a note', { readOnly: true }, { type: 'object' }, () => ({
  status: 'ok',
  data: 'first',
}))
const server = testServers({ config: { callDeadlineMs: DEADLINE } })

/** A raw event stream, resumable with `lastEventId`: what a browser's EventSource does by itself. */
async function stream(browser: Browser, conversation: string, lastEventId?: string) {
  const abort = new AbortController()
  const response = await browser.fetch(`/toolmark/events?conversation=${conversation}`, {
    headers: lastEventId ? { 'last-event-id': lastEventId } : {},
    signal: abort.signal,
  })
  const events = readEvents(response.body!)
  const next = async (): Promise<EventSourceMessage> => {
    const { value, done } = await events.next()
    if (done) throw new Error('the stream ended')
    return value
  }
  return { response, next, events, abort }
}

/** Posts a manifest on page connection `id`, as the page's transport does once the stream is ready. */
async function manifest(browser: Browser, id: string, clientId = randomUUID()): Promise<string> {
  const { run: _run, inputSchema: _schema, ...tool } = readTool
  const response = await browser.fetch('/toolmark/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-toolmark-stream': id },
    body: JSON.stringify({ protocol: 1, type: 'manifest', clientId, rev: 1, tools: [tool] }),
  })
  expect(response.status).toBe(202)
  return clientId
}

/** A conversation whose page (over HTTP) has sent its manifest; the agent's turns call `notes.read`. */
async function httpPage(turns: number, options: { clock?: ReturnType<typeof manualClock> } = {}) {
  const script = Array.from({ length: turns }, (_, i) => () => [
    toolCall(`tc${i}`, 'page_call', { tool: readTool.name, input: { i } }),
  ])
  const t = await server({ provider: new ScriptedProvider(script), ...options })
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const page = await FakePage.open(t.server.url, browser, conversation, [readTool], { transport: 'http' })
  page.autoAnswer = false
  return { t, browser, conversation, page }
}

describe('bridge over HTTP: resume after a dropped stream', () => {
  it('delivers a call sent while the stream was down exactly once after the resume (Last-Event-ID)', async () => {
    const t = await server({
      provider: new ScriptedProvider([
        () => [toolCall('tc1', 'page_call', { tool: readTool.name, input: {} })],
        () => [{ type: 'text', delta: 'done' }],
      ]),
    })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const first = await stream(browser, conversation)
    const ready = await first.next()
    expect(ready.event).toBe('ready')
    const { stream: id } = JSON.parse(ready.data) as { stream: string }
    expect(ready.id).toBe(`${id}:0`)
    await manifest(browser, id)

    t.server.dropBridgeStreams()
    await expect(first.next()).rejects.toThrow('the stream ended')
    await browser.say(conversation, 'read it') // the call waits in the page connection's window
    const resumed = await stream(browser, conversation, `${id}:0`)
    const call = await resumed.next()
    expect(call.event).toBeUndefined()
    expect(call.id).toBe(`${id}:1`)
    expect(JSON.parse(call.data)).toMatchObject({ type: 'call', tool: 'notes.read' })
    resumed.abort.abort()

    // Resuming from the call's id replays nothing; from before it, the same event with the same id.
    const again = await stream(browser, conversation, `${id}:0`)
    expect((await again.next()).id).toBe(`${id}:1`)
    again.abort.abort()
  })

  it('withdraws a call whose deadline passed while the stream was down: the page never runs it', async () => {
    const clock = manualClock()
    const t = await server({
      clock,
      provider: new ScriptedProvider([
        () => [toolCall('tc1', 'page_call', { tool: readTool.name, input: {} })],
        () => [{ type: 'text', delta: 'it timed out' }],
      ]),
    })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const first = await stream(browser, conversation)
    const { stream: id } = JSON.parse((await first.next()).data) as { stream: string }
    await manifest(browser, id)
    t.server.dropBridgeStreams()
    await browser.say(conversation, 'read it')
    await until(async () => (await t.server.store.listMessages(conversation)).some((m) => m.role === 'user'))
    clock.advance(DEADLINE)
    await t.server.agent.idle(conversation)
    expect(JSON.stringify(await t.server.store.listMessages(conversation))).toContain(
      (TIMEOUT_RESULT as { message: string }).message,
    )

    const resumed = await stream(browser, conversation, `${id}:0`)
    const sent: AgentToPageMessage[] = []
    t.server.dropBridgeStreams() // ends the resumed stream after what it had to replay
    for await (const event of resumed.events) sent.push(JSON.parse(event.data) as AgentToPageMessage)
    expect(sent).toEqual([]) // neither the call nor its cancel
  })

  it(`starts a new page connection when the resume point fell out of the replay window (${REPLAY_WINDOW} events)`, async () => {
    const t = await server()
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const first = await stream(browser, conversation)
    const { stream: id } = JSON.parse((await first.next()).data) as { stream: string }
    await manifest(browser, id)
    t.server.dropBridgeStreams()
    // More describes than the window holds, all for a page that is not listening.
    const userId = (await t.server.store.getConversation(conversation))!.userId
    for (let i = 0; i <= REPLAY_WINDOW; i++)
      void t.server.relay.request(
        { userId, conversationId: conversation, toolCallId: `d${i}` },
        { kind: 'describe', tool: readTool.name },
      )
    const resumed = await stream(browser, conversation, `${id}:0`)
    const ready = await resumed.next()
    expect(ready.event).toBe('ready')
    expect(JSON.parse(ready.data).stream).not.toBe(id)
    resumed.abort.abort()
  })
})

describe('bridge over HTTP: a stream that does not come back', () => {
  /** A page connection with a manifest whose stream the server dropped, on a manual clock. */
  async function dropped() {
    const clock = manualClock()
    const t = await server({ clock })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const first = await stream(browser, conversation)
    const { stream: id } = JSON.parse((await first.next()).data) as { stream: string }
    await manifest(browser, id)
    t.server.dropBridgeStreams()
    await expect(first.next()).rejects.toThrow('the stream ended')
    const userId = (await t.server.store.getConversation(conversation))!.userId
    const describe = () =>
      void t.server.relay.request(
        {
          userId,
          conversationId: conversation,
          toolCallId: 'd',
        },
        { kind: 'describe', tool: readTool.name },
      )
    return { t, clock, browser, conversation, id, describe }
  }

  it(`keeps the page connection for ${RESUME_GRACE_MS} ms: a resume just before then gets what was sent`, async () => {
    const { clock, browser, conversation, id, describe } = await dropped()
    clock.advance(RESUME_GRACE_MS - 1)
    describe()
    const resumed = await stream(browser, conversation, `${id}:0`)
    const event = await resumed.next()
    expect([event.event, event.id]).toEqual([undefined, `${id}:1`])
    resumed.abort.abort()
  })

  it('then closes it, as a closed socket: a resume starts a new one, and POSTs to the old one are 404', async () => {
    const { clock, browser, conversation, id } = await dropped()
    clock.advance(RESUME_GRACE_MS)
    const resumed = await stream(browser, conversation, `${id}:0`)
    const ready = await resumed.next()
    expect(ready.event).toBe('ready')
    expect(JSON.parse(ready.data).stream).not.toBe(id)
    resumed.abort.abort()
    const post = await browser.fetch('/toolmark/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toolmark-stream': id },
      body: '{}',
    })
    expect(post.status).toBe(404)
  })
})

describe('bridge over HTTP: POST', () => {
  it("refuses another user's page connection (404), a non-JSON body (415) and no session (401)", async () => {
    const { t, page } = await httpPage(0)
    const link = page.link as HttpLink
    const mallory = await t.browser()
    const post = (b: Browser, headers: Record<string, string>) =>
      b.fetch('/toolmark/messages', { method: 'POST', headers, body: '{}' })
    const json = { 'content-type': 'application/json', 'x-toolmark-stream': link.stream }
    expect((await post(mallory, json)).status).toBe(404)
    const own = new Browser(t.server.url)
    own.cookie = link.cookie ?? ''
    expect((await post(own, { ...json, 'content-type': 'text/plain' })).status).toBe(415)
    const anonymous = new Browser(t.server.url)
    expect((await post(anonymous, json)).status).toBe(401)
    expect((await post(own, { ...json, origin: 'https://evil.example' })).status).toBe(403)
    expect(t.rejections).toEqual([])
  })
})

async function until(predicate: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await predicate()); i++) await new Promise((r) => setTimeout(r, 10))
  if (!(await predicate())) throw new Error('condition not met')
}

describe('bridge over HTTP: a full reload', () => {
  const saveTool = fakeTool('notes.save', 'Save a note', { consequential: true }, { type: 'object' }, () => ({
    status: 'ok',
    data: 'saved',
  }))

  it('expires the cards of a page load whose stream is down when another page load connects, without waiting for the resume grace', async () => {
    const t = await server({
      // Without asking again, the card is lost with its page (asking again: reask.test.ts).
      config: { reaskConfirmations: false },
      provider: new ScriptedProvider([
        () => [toolCall('tc1', 'page_call', { tool: saveTool.name, input: {} })],
        () => [{ type: 'text', delta: 'Approve the card on the page.' }],
      ]),
    })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const first = await FakePage.open(t.server.url, browser, conversation, [saveTool], { transport: 'http' })
    await browser.say(conversation, 'save it')
    await t.server.agent.idle(conversation)
    const [confirmId] = [...first.pending.keys()]
    expect((await t.server.store.getConfirm(confirmId!))!.state).toBe('pending')
    // The old page's stream is gone (a reload closes it); the new page load connects at once.
    t.server.dropBridgeStreams()
    await FakePage.open(t.server.url, browser, conversation, [saveTool], { transport: 'http' })
    await t.server.agent.idle(conversation)
    expect((await t.server.store.getConfirm(confirmId!))!.state).toBe('expired')
    const log = await browser.messages(conversation)
    expect(log.at(-1)).toMatchObject({ role: 'tool', text: expect.stringContaining('confirmation expired') })
  })

  it('keeps the cards of another page load whose stream is still open (a second tab)', async () => {
    const t = await server({
      provider: new ScriptedProvider([
        () => [toolCall('tc1', 'page_call', { tool: saveTool.name, input: {} })],
        () => [{ type: 'text', delta: 'Approve the card on the page.' }],
      ]),
    })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const first = await FakePage.open(t.server.url, browser, conversation, [saveTool], { transport: 'http' })
    await browser.say(conversation, 'save it')
    await t.server.agent.idle(conversation)
    const [confirmId] = [...first.pending.keys()]
    await FakePage.open(t.server.url, browser, conversation, [saveTool], { transport: 'http' })
    await t.server.agent.idle(conversation)
    expect((await t.server.store.getConfirm(confirmId!))!.state).toBe('pending')
  })
})
