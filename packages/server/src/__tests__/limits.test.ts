import { describe, expect, it, onTestFinished } from 'vitest'
import type { ProviderRequest } from '../agent/types.ts'
import { DRAIN_BYTES } from '../http/body.ts'
import { MAX_CHAT_COMPLETIONS_BYTES } from '../http/openai-compat.ts'
import { createToolmarkServer, type ToolmarkServerOptions } from '../server.ts'
import { MAX_MANIFEST_CHARS, MAX_PROVIDER_TEXT } from '../shared/bounds.ts'
import { FakePage, fakeTool, ScriptedProvider, testServer, toolCall } from './helpers.ts'

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
          [{ type: 'function', function: { name: 'page_call', description: 'x'.repeat(MAX_PROVIDER_TEXT + 1) } }],
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
