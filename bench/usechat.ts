// Stream adapters benchmark: a turn's server time through the useChat route (`@toolmark/server/ui-stream`) and
// the AG-UI endpoint (`@toolmark/server/ag-ui`) against the native chat API (POST a message, read the chat
// event stream until the turn ends), in the same process and run. Each
// turn is one page_call step (no page is bound, so the relay answers at once) and one text answer, the same
// events either way; the paths alternate so drift hits all. Goal: each adapter adds ≤ 10 %. The page side is
// untouched by them: they add no byte there (the page's bundle and bridge messages are the same).
// Run with `pnpm bench:usechat`.
import { createToolmarkServer, type ProviderEvent, type ProviderRequest } from '@toolmark/server'
import { agUiHandler } from '@toolmark/server/ag-ui'
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
const agUi = agUiHandler(server)
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

/** The AG-UI endpoint: a run's own stream, read to `RUN_FINISHED`. */
async function ag(id: string): Promise<number> {
  const t0 = performance.now()
  const response = await agUi(
    request('/api/ag-ui', {
      method: 'POST',
      body: JSON.stringify({
        threadId: id,
        runId: crypto.randomUUID(),
        messages: [{ id: 'u', role: 'user', content: 'search x' }],
      }),
    }),
  )
  await readUntil(response.body!, (t) => t.includes('"RUN_FINISHED"'))
  return performance.now() - t0
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const paths = { native, ui, ag }
const times: Record<keyof typeof paths, number[]> = { native: [], ui: [], ag: [] }
const order = Object.keys(paths) as (keyof typeof paths)[]
for (let i = 0; i < TURNS + WARMUP; i++) {
  // A fresh conversation per turn and path: every path sees the same history length. The order rotates.
  for (let k = 0; k < order.length; k++) {
    const name = order[(i + k) % order.length]!
    const ms = await paths[name](await newConversation())
    if (i >= WARMUP) times[name].push(ms)
  }
}
await server.close()
const nativeMs = median(times.native)
const added = (ms: number) => `${ms.toFixed(3)} ms, added ${((ms / nativeMs - 1) * 100).toFixed(1)} %`
console.info(
  `stream adapters vs native chat API, median turn server time over ${TURNS} turns: native ${nativeMs.toFixed(3)} ms; ` +
    `useChat route ${added(median(times.ui))}; AG-UI ${added(median(times.ag))} (goal ≤ 10 % each); page-side bytes added: 0`,
)
