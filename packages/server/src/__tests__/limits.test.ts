import { describe, expect, it, onTestFinished } from 'vitest'
import type { Provider, ProviderEvent, ProviderRequest } from '../agent/types.ts'
import { DRAIN_BYTES } from '../http/body.ts'
import { MAX_CHAT_COMPLETIONS_BYTES } from '../http/openai-compat.ts'
import { createToolmarkServer, type ToolmarkServerOptions } from '../server.ts'
import { MAX_MANIFEST_CHARS, MAX_PROVIDER_TEXT } from '../shared/bounds.ts'
import { FakePage, fakeTool } from './support/fake-page.ts'
import { HttpLink, openSocket } from './support/page-links.ts'
import { ScriptedProvider, toolCall } from './support/scripted-provider.ts'
import { testServer } from './support/test-server.ts'

/*
 * One client must not hurt the others: every body is read up to its limit and no further, and no text over its
 * limit reaches a provider. Driven through `fetch` (no Node server), so the bytes a body hands over are counted.
 */

const ORIGIN = 'http://localhost:3000'

function harness(options: Partial<ToolmarkServerOptions> = {}) {
  const provider = new ScriptedProvider([])
  const planner = new ScriptedProvider([])
  const server = createToolmarkServer({ provider, chatCompletions: planner, log: () => {}, ...options })
  onTestFinished(() => server.close())
  return { server, provider, planner }
}

/** A streamed body (no Content-Length) of `total` bytes of `{"text":"xxx…`, and how many bytes were pulled. */
function endless(total: number, chunk = 65_536) {
  const counted = { pulled: 0 }
  const head = new TextEncoder().encode('{"text":"')
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counted.pulled >= total) return controller.close()
      const bytes = counted.pulled === 0 ? head : new Uint8Array(chunk).fill(0x78)
      counted.pulled += bytes.byteLength
      controller.enqueue(bytes)
    },
  })
  return { body, counted }
}

const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(ORIGIN + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duplex: 'half',
  } as RequestInit)

describe('POST /v1/chat/completions', () => {
  it('stops reading a 48 MiB body at the limit and answers 413', async () => {
    const { server, planner } = harness()
    const { body, counted } = endless(48 * 1_048_576)
    const response = await server.fetch(post('/v1/chat/completions', body))
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ error: { code: 'body_too_large' } })
    expect(counted.pulled).toBeLessThanOrEqual(MAX_CHAT_COMPLETIONS_BYTES + DRAIN_BYTES + 2 * 65_536)
    expect(planner.requests).toEqual([])
  })

  it('refuses a declared length over the limit without reading the body', async () => {
    const { server } = harness()
    const { body, counted } = endless(48 * 1_048_576)
    const response = await server.fetch(
      post('/v1/chat/completions', body, { 'content-length': String(48 * 1_048_576) }),
    )
    expect(response.status).toBe(413)
    expect(counted.pulled).toBeLessThanOrEqual(2 * 65_536)
  })

  it('refuses a body nested deeper than 64 levels before parsing it, and serves one 64 deep', async () => {
    const { server, planner } = harness()
    // The body is level 1 and `metadata` level 2: `[` × n there makes the body n + 1 deep.
    const body = (n: number) =>
      `{"messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(n)}${']'.repeat(n)}}`
    const refused = await server.fetch(post('/v1/chat/completions', body(64)))
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'too_deep' } })
    expect(planner.requests).toEqual([])
    const served = await server.fetch(post('/v1/chat/completions', body(63)))
    expect(served.status).toBe(200)
  })

  it('refuses a text over its limit before the provider sees it, and serves one at the limit', async () => {
    const { server, planner } = harness()
    const ask = (messages: unknown[], tools: unknown[] = []) =>
      server.fetch(post('/v1/chat/completions', JSON.stringify({ messages, tools })))
    const refused: Array<[Response, string]> = [
      [await ask([{ role: 'user', content: 'x'.repeat(4001) }]), 'message_too_long'],
      [await ask([{ role: 'system', content: 'x'.repeat(MAX_PROVIDER_TEXT + 1) }]), 'text_too_long'],
      [
        await ask([
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'a', content: 'x'.repeat(MAX_PROVIDER_TEXT + 1) },
        ]),
        'text_too_long',
      ],
      [
        await ask(
          [{ role: 'user', content: 'hi' }],
          [
            {
              type: 'function',
              function: { name: 'page_call', description: 'x'.repeat(MAX_PROVIDER_TEXT + 1) },
            },
          ],
        ),
        'text_too_long',
      ],
    ]
    for (const [response, code] of refused) {
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', code } })
    }
    expect(planner.requests).toEqual([])
    const served = await ask([{ role: 'user', content: 'x'.repeat(4000) }])
    expect(served.status).toBe(200)
    expect(planner.requests).toHaveLength(1)
  })
})

describe('POST /api/conversations/:id/messages', () => {
  it('stops reading a streamed body at 64 KiB and answers 413', async () => {
    const { server, provider } = harness()
    const created = await server.fetch(new Request(`${ORIGIN}/api/conversations`, { method: 'POST' }))
    const cookie = (created.headers.get('set-cookie') ?? '').split(';')[0] as string
    const { id } = (await created.json()) as { id: string }
    const { body, counted } = endless(48 * 1_048_576)
    const response = await server.fetch(post(`/api/conversations/${id}/messages`, body, { cookie }))
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ error: { code: 'body_too_large' } })
    expect(counted.pulled).toBeLessThanOrEqual(64 * 1024 + DRAIN_BYTES + 2 * 65_536)
    expect((provider.requests as ProviderRequest[]).length).toBe(0)
  })
})

describe('what a turn hands the provider', () => {
  it('replaces a page result over the limit, and leaves out the tools past the manifest budget', async () => {
    const provider = new ScriptedProvider([
      () => [toolCall('tc1', 'page_call', { tool: 'notes.read', input: {} })],
      () => [{ type: 'text', delta: 'done' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const read = fakeTool('notes.read', 'Read the notes', { readOnly: true }, { type: 'object' }, () => ({
      status: 'ok',
      data: 'x'.repeat(500_000),
    }))
    const huge = fakeTool('notes.huge', 'y'.repeat(MAX_MANIFEST_CHARS), {}, { type: 'object' })
    await FakePage.open(t.server.url, browser, conversation, [huge, read])
    await browser.say(conversation, 'read the notes')
    await t.server.agent.idle(conversation)
    const [first, second] = provider.requests as [ProviderRequest, ProviderRequest]
    expect(first.tools[0]?.description).toContain('notes.read')
    expect(first.tools[0]?.description).not.toContain('notes.huge')
    expect(first.tools[0]!.description.length).toBeLessThanOrEqual(MAX_PROVIDER_TEXT)
    const result = second.messages.find((m) => m.role === 'tool')
    expect(result?.role === 'tool' && JSON.parse(result.content)).toEqual({
      status: 'error',
      message: expect.stringContaining('too large for the model'),
    })
    // Nothing the turn stored is longer than what the provider may be handed.
    for (const m of await t.server.store.listMessages(conversation))
      expect(JSON.stringify(m).length).toBeLessThan(2 * MAX_PROVIDER_TEXT)
  })
})

/** Every refusal of a cap: 429, `Retry-After`, JSON `{ error: { code, message } }`. */
async function expectTooMany(response: Response, code: string): Promise<void> {
  expect(response.status).toBe(429)
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(await response.json()).toEqual({ error: { code, message: expect.any(String) } })
}

describe('caps per user: one over them is refused, the others are served', () => {
  it('page connections (sockets and HTTP page streams together)', async () => {
    const t = await testServer({ config: { maxPageConnectionsPerUser: 2 } })
    const alice = await t.browser()
    const bob = await t.browser()
    const [a, b] = [await alice.createConversation(), await bob.createConversation()]
    const socket = await openSocket(t.server.url, { cookie: alice.cookie, conversation: a })
    const stream = await HttpLink.open(t.server.url, { cookie: alice.cookie, conversation: a })
    expect(stream).toBeInstanceOf(HttpLink)
    // A third: the socket is closed with 1013 (try again later), the stream answered 429.
    const third = await openSocket(t.server.url, { cookie: alice.cookie, conversation: a })
    expect(await third.closed).toBe(1013)
    const refused = await fetch(`${t.server.url}/toolmark/events?conversation=${a}`, {
      headers: { cookie: alice.cookie },
    })
    await expectTooMany(refused, 'too_many_connections')
    // Bob is not affected.
    const bobs = await openSocket(t.server.url, { cookie: bob.cookie, conversation: b })
    expect(await Promise.race([bobs.closed, new Promise((r) => setTimeout(() => r('open'), 200))])).toBe(
      'open',
    )
    // A connection Alice closes frees its place.
    socket.ws.close()
    await socket.closed
    await t.settled()
    const again = await HttpLink.open(t.server.url, { cookie: alice.cookie, conversation: a })
    expect(again).toBeInstanceOf(HttpLink)
    for (const link of [stream, again]) await (link as HttpLink).close()
    bobs.ws.close()
  })

  it('chat event streams', async () => {
    const t = await testServer({ config: { maxChatStreamsPerUser: 2 } })
    const alice = await t.browser()
    const bob = await t.browser()
    const [a, b] = [await alice.createConversation(), await bob.createConversation()]
    const open = () => new AbortController()
    const streams = [open(), open()]
    for (const abort of streams) {
      const response = await alice.fetch(`/api/conversations/${a}/events`, { signal: abort.signal })
      expect(response.status).toBe(200)
    }
    await expectTooMany(await alice.fetch(`/api/conversations/${a}/events`), 'too_many_streams')
    const bobs = new AbortController()
    expect((await bob.fetch(`/api/conversations/${b}/events`, { signal: bobs.signal })).status).toBe(200)
    // Closing one (a tab closed) frees its place.
    streams[0]!.abort()
    await expect
      .poll(async () => {
        const abort = open()
        const response = await alice.fetch(`/api/conversations/${a}/events`, { signal: abort.signal })
        if (response.status === 200) streams.push(abort)
        else await response.body?.cancel()
        return response.status
      })
      .toBe(200)
    for (const abort of [...streams, bobs]) abort.abort()
  })

  it('conversations: a user at the cap creates no more (no Retry-After: waiting does not help)', async () => {
    const t = await testServer({ config: { maxConversationsPerUser: 2 } })
    const alice = await t.browser() // its session came with a first conversation
    expect((await alice.fetch('/api/conversations', { method: 'POST' })).status).toBe(201)
    const refused = await alice.fetch('/api/conversations', { method: 'POST' })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBeNull()
    expect(await refused.json()).toEqual({
      error: { code: 'too_many_conversations', message: expect.any(String) },
    })
    const bob = await t.browser()
    expect((await bob.fetch('/api/conversations', { method: 'POST' })).status).toBe(201)
  })

  it('queued agent turns: a message over the cap is refused and not stored', async () => {
    let open: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    const provider: Provider = {
      name: 'gated',
      async *stream(): AsyncIterable<ProviderEvent> {
        await gate
        yield { type: 'text', delta: 'done' }
      },
    }
    const t = await testServer({ provider, config: { maxQueuedTurnsPerUser: 2 } })
    const alice = await t.browser()
    const bob = await t.browser()
    const [a, b] = [await alice.createConversation(), await bob.createConversation()]
    const other = await alice.createConversation()
    expect((await alice.say(a, 'one')).status).toBe(202)
    expect((await alice.say(other, 'two')).status).toBe(202)
    await expectTooMany(await alice.say(a, 'three'), 'too_many_turns')
    expect((await bob.say(b, 'hello')).status).toBe(202)
    expect((await alice.messages(a)).map((m) => m.text)).toEqual(['one'])
    open()
    await Promise.all([a, other, b].map((id) => t.server.agent.idle(id)))
    expect((await alice.say(a, 'three')).status).toBe(202)
    await t.server.agent.idle(a)
  })
})
