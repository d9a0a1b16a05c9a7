import { PROTOCOL_VERSION } from '@toolmark/protocol'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { createToolmarkServer, routeHandlers, type ToolmarkServerOptions } from '../index.ts'
import { ScriptedProvider, toolCall } from './support/scripted-provider.ts'

/*
 * The server as a plain `fetch(Request): Promise<Response>`, with no Node HTTP server in between:
 * what a Next.js route handler, Hono, Deno or Bun hands it.
 */

const ORIGIN = 'http://localhost:3000'

/**
 * A server whose model calls `notes.list` once, then answers with what the page returned. Its store
 * is the default, in memory: nothing here needs Node.
 */
function harness(options: Partial<ToolmarkServerOptions> = {}) {
  const provider = new ScriptedProvider([
    () => [toolCall('tc1', 'page_call', { tool: 'notes.list', input: {} })],
    (request) => {
      const last = request.messages.at(-1)
      return [{ type: 'text', delta: last?.role === 'tool' ? `page said ${last.content}` : 'no result' }]
    },
  ])
  const server = createToolmarkServer({ provider, log: () => {}, ...options })
  onTestFinished(() => server.close())
  return server
}

/** A cookie-keeping client that calls `fetch` directly. */
function client(fetch: (request: Request) => Promise<Response>, headers: Record<string, string> = {}) {
  let cookie = ''
  return async (path: string, init: RequestInit = {}): Promise<Response> => {
    const all = new Headers({ ...headers, ...(init.headers as Record<string, string> | undefined) })
    if (cookie) all.set('cookie', cookie)
    const response = await fetch(new Request(ORIGIN + path, { ...init, headers: all }))
    const set = response.headers.get('set-cookie')
    if (set) cookie = set.split(';')[0] as string
    return response
  }
}

/** The events of an event-stream response; `cancel()` ends the response as a closed tab would. */
function events(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader()
  return { next: () => reader.read(), cancel: () => reader.cancel() }
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})

describe('createToolmarkServer().fetch in a plain Request/Response harness', () => {
  it('creates a conversation, relays a page_call over the HTTP bridge and streams the answer', async () => {
    const server = harness()
    const call = client(server.fetch)

    const created = await call('/api/conversations', { method: 'POST' })
    expect(created.status).toBe(201)
    const { id: conversation } = (await created.json()) as { id: string }

    // The page's side: the bridge's event stream, then its manifest over POST.
    const bridge = await call(`/toolmark/events?conversation=${conversation}`)
    expect(bridge.headers.get('content-type')).toContain('text/event-stream')
    const pageEvents = events(bridge)
    const ready = (await pageEvents.next()).value
    expect(ready?.event).toBe('ready')
    const stream = (JSON.parse(ready?.data ?? '{}') as { stream: string }).stream
    const post = (message: unknown) =>
      call('/toolmark/messages', {
        ...json({ protocol: PROTOCOL_VERSION, clientId: 'page-1', ...(message as object) }),
        headers: { 'content-type': 'application/json', 'x-toolmark-stream': stream },
      })
    const manifest = await post({
      type: 'manifest',
      rev: 1,
      tools: [
        {
          name: 'notes.list',
          llmName: 'notes__list',
          description: 'Lists the notes',
          hints: { readOnly: true },
        },
      ],
    })
    expect(manifest.status).toBe(202)

    // The chat's side: its event stream, then the user's message.
    const chat = await call(`/api/conversations/${conversation}/events`)
    const chatEvents = events(chat)
    expect(JSON.parse((await chatEvents.next()).value?.data ?? '')).toEqual({ type: 'busy', busy: false })
    const said = await call(`/api/conversations/${conversation}/messages`, json({ text: 'list my notes' }))
    expect(said.status).toBe(202)

    const request = JSON.parse((await pageEvents.next()).value?.data ?? '') as { type: string; id: string }
    expect(request).toMatchObject({ type: 'call', tool: 'notes.list', input: {}, clientId: 'page-1' })
    expect(
      (await post({ type: 'result', id: request.id, result: { status: 'ok', data: ['a', 'b'] } })).status,
    ).toBe(202)
    await server.agent.idle(conversation)

    const read = (await (await call(`/api/conversations/${conversation}`)).json()) as {
      messages: Array<{ role: string; text: string }>
    }
    expect(read.messages.map((m) => m.role)).toEqual(['user', 'tool', 'assistant'])
    expect(read.messages.at(-1)?.text).toContain('page said')
    expect(read.messages.at(-1)?.text).toContain('"a"')
    const seen: unknown[] = []
    for (;;) {
      const event = JSON.parse((await chatEvents.next()).value?.data ?? '') as {
        type: string
        busy?: boolean
      }
      seen.push(event.type)
      if (event.type === 'busy' && event.busy === false) break
    }
    expect(seen).toContain('message')
    await chatEvents.cancel()
    await pageEvents.cancel()
  })

  it('refuses a foreign Host or Origin before anything else, as behind a Node server', async () => {
    const server = harness()
    const foreignHost = await server.fetch(
      new Request('http://rebind.example/api/conversations', { method: 'POST' }),
    )
    expect(foreignHost.status).toBe(403)
    expect(await foreignHost.json()).toMatchObject({ error: { code: 'host_not_allowed' } })
    const foreignOrigin = await client(server.fetch, { origin: 'https://evil.example' })(
      '/api/conversations',
      {
        method: 'POST',
      },
    )
    expect(foreignOrigin.status).toBe(403)
    expect(await foreignOrigin.json()).toMatchObject({ error: { code: 'cross_origin' } })
    expect(await server.store.countSessions()).toBe(0)
  })

  it('answers unknown paths with a JSON 404, or hands them to `fallback`', async () => {
    const plain = harness()
    const missing = await client(plain.fetch)('/somewhere')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'Not found' } })
    const withFallback = harness({
      fallback: (request) => new Response(`app: ${new URL(request.url).pathname}`),
    })
    expect(await (await client(withFallback.fetch)('/settings')).text()).toBe('app: /settings')
    expect((await client(withFallback.fetch)('/api/nope')).status).toBe(404)
  })
})

describe('routeHandlers', () => {
  it('gives a Next.js route file GET and POST that serve the same API as fetch', async () => {
    const { GET, POST } = routeHandlers(harness())
    const created = await POST(new Request(`${ORIGIN}/api/conversations`, { method: 'POST' }))
    expect(created.status).toBe(201)
    const cookie = (created.headers.get('set-cookie') ?? '').split(';')[0] as string
    const { id } = (await created.json()) as { id: string }
    const read = await GET(new Request(`${ORIGIN}/api/conversations/${id}`, { headers: { cookie } }))
    expect(await read.json()).toEqual({ id, messages: [] })
  })

  it('gives DELETE too, which revokes a remembered approval', async () => {
    const { POST, GET, DELETE } = routeHandlers(harness())
    const created = await POST(new Request(`${ORIGIN}/api/conversations`, { method: 'POST' }))
    const cookie = (created.headers.get('set-cookie') ?? '').split(';')[0] as string
    const headers = { cookie, origin: ORIGIN, 'content-type': 'application/json' }
    const grant = {
      tool: 'notes.add',
      fingerprint: 'a'.repeat(16),
      caller: 'inapp',
      expiresAt: Date.now() + 86_400_000,
    }
    const put = await POST(
      new Request(`${ORIGIN}/api/grants`, { method: 'POST', headers, body: JSON.stringify(grant) }),
    )
    expect(put.status).toBe(201)
    const { grant: stored } = (await put.json()) as { grant: { id: string } }
    const revoked = await DELETE(
      new Request(`${ORIGIN}/api/grants/${stored.id}`, {
        method: 'DELETE',
        headers: { cookie, origin: ORIGIN },
      }),
    )
    expect(revoked.status).toBe(204)
    const list = await GET(new Request(`${ORIGIN}/api/grants`, { headers: { cookie } }))
    expect(await list.json()).toEqual({ grants: [] })
  })
})

describe('drain', () => {
  it('answers /toolmark/ready 503 for drainMs while the API keeps serving, then closes', async () => {
    vi.useFakeTimers()
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const server = harness({ drainMs: 10_000 })
    const call = client(server.fetch)
    expect((await call('/toolmark/ready')).status).toBe(200)
    let closed = false
    const closing = server.close().then(() => {
      closed = true
    })
    const ready = await call('/toolmark/ready')
    expect(ready.status).toBe(503)
    expect(((await ready.json()) as { error: { code: string } }).error.code).toBe('not_ready')
    expect((await call('/toolmark/health')).status).toBe(200)
    // Still serving: a new conversation is created while the balancer takes the instance out.
    expect((await call('/api/conversations', { method: 'POST', headers: { origin: ORIGIN } })).status).toBe(
      201,
    )
    await vi.advanceTimersByTimeAsync(9_999)
    expect(closed).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await closing
    expect(closed).toBe(true)
  })

  it('ends the open chat and page event streams, so a graceful stop of the host (next start) is not held up', async () => {
    const server = harness()
    const call = client(server.fetch)
    const { id } = (await (await call('/api/conversations', { method: 'POST' })).json()) as { id: string }
    const chat = events(await call(`/api/conversations/${id}/events`))
    const page = events(await call(`/toolmark/events?conversation=${id}`))
    expect((await chat.next()).value?.data).toBe('{"type":"busy","busy":false}')
    expect((await page.next()).value?.event).toBe('ready')

    await server.close()
    expect(await chat.next()).toMatchObject({ done: true })
    expect(await page.next()).toMatchObject({ done: true })
    // A page reconnecting meanwhile gets no new stream: the instance is shutting down (try again shortly).
    const again = await call(`/toolmark/events?conversation=${id}`)
    expect(again.status).toBe(503)
    expect(again.headers.get('retry-after')).toBe('1')
    // It asks to close the connection, which a closing Node server would otherwise keep until it times out.
    expect(again.headers.get('connection')).toBe('close')
    expect(await again.json()).toEqual({
      error: { code: 'not_ready', message: 'This instance is shutting down' },
    })
  })

  it('closes at once by default', async () => {
    const server = harness()
    await server.close()
    expect((await server.fetch(new Request(`${ORIGIN}/toolmark/ready`))).status).toBe(503)
  })
})
