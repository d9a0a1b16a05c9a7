// useChat route benchmark: a turn's server time through `@toolmark/server/ui-stream` against the native chat
// API (POST a message, read the chat event stream until the turn ends), in the same process and run. Each
// turn is one page_call step (no page is bound, so the relay answers at once) and one text answer, the same
// events either way; the two paths alternate so drift hits both. Goal: the route adds ≤ 10 %. The page side
// is untouched by the route: it adds no byte there (the page's bundle and bridge messages are the same).
// Run with `pnpm bench:usechat`.
import { createToolmarkServer, type ProviderEvent, type ProviderRequest } from '@toolmark/server'
import { uiMessageStreamHandler } from '@toolmark/server/ui-stream'

const TURNS = 300
const WARMUP = 30

const server = createToolmarkServer({
  authenticate: () => 'bench',
  provider: {
    name: 'scripted',
    async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
      const last = request.messages[request.messages.length - 1]
      if (last?.role === 'user')
        yield {
          type: 'tool_call',
          call: {
            id: crypto.randomUUID(),
            name: 'page_call',
            input: { tool: 'notes.search', input: { query: 'x' } },
          },
        }
      else yield { type: 'text', delta: 'Found nothing: no page is open.' }
    },
  },
})
const chat = uiMessageStreamHandler(server)
const request = (path: string, init: RequestInit = {}) =>
  new Request(`http://localhost${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  })

async function newConversation(): Promise<string> {
  const response = await server.fetch(request('/api/conversations', { method: 'POST' }))
  return ((await response.json()) as { id: string }).id
}

/** Reads a response body until `done(text so far)` holds, then cancels it. */
async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean): Promise<void> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { value, done: ended } = await reader.read()
    if (ended) return
    text += decoder.decode(value, { stream: true })
    if (done(text)) {
      await reader.cancel()
      return
    }
  }
}

/** Native: the chat event stream open first, then the POST; the turn ends at `busy: false`. */
async function native(id: string): Promise<number> {
  const events = await server.fetch(request(`/api/conversations/${id}/events`))
  const reader = readUntil(events.body!, (t) => t.split('"busy":false').length > 2) // the opening state, then the turn's end
  const t0 = performance.now()
  await server.fetch(
    request(`/api/conversations/${id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: 'search x' }),
    }),
  )
  await reader
  return performance.now() - t0
}

/** The useChat route: the POST's own stream, read to `[DONE]`. */
async function ui(id: string): Promise<number> {
  const t0 = performance.now()
  const response = await chat(
    request('/api/chat', {
      method: 'POST',
      body: JSON.stringify({
        id,
        trigger: 'submit-message',
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'search x' }] }],
      }),
    }),
  )
  await readUntil(response.body!, (t) => t.includes('data: [DONE]'))
  return performance.now() - t0
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const times = { native: [] as number[], ui: [] as number[] }
for (let i = 0; i < TURNS + WARMUP; i++) {
  // A fresh conversation per turn: both paths see the same history length.
  const [a, b] = [await newConversation(), await newConversation()]
  const first = i % 2 === 0
  const n = first ? await native(a) : 0
  const u = await ui(b)
  const n2 = first ? n : await native(a)
  if (i >= WARMUP) {
    times.native.push(n2)
    times.ui.push(u)
  }
}
await server.close()
const nativeMs = median(times.native)
const uiMs = median(times.ui)
const ratio = uiMs / nativeMs - 1
console.info(
  `useChat route vs native chat API, median turn server time over ${TURNS} turns: native ${nativeMs.toFixed(3)} ms, ` +
    `ui-stream ${uiMs.toFixed(3)} ms, added ${(ratio * 100).toFixed(1)} % (goal ≤ 10 %); page-side bytes added: 0`,
)
