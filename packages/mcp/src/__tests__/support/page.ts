// The app side of the relay test: a registry with a confirm queue, tools, and mcpPairing().
import { createConfirmQueue, createToolmark, ok, type RunResult } from '@toolmark/core'
import { mcpPairing, type PairingStatus } from '@toolmark/mcp/page'

const queue = createConfirmQueue()
const relay = new URLSearchParams(location.search).get('relay') ?? ''
// A client that confirms in its own UI is asked there; any other gets this page's card.
const pairing = mcpPairing({
  url: relay,
  onStatus: (s) => {
    status = s
  },
})
const tm = createToolmark({ confirm: pairing.confirm(queue.handler) })
const runs: string[] = []
let status: PairingStatus = { state: 'connecting' }
let aborted = false

tm.register({
  name: 'search',
  title: 'Search',
  description: 'Search challenges by keyword.',
  jsonSchema: {
    type: 'object',
    properties: { query: { type: 'string', minLength: 1 } },
    required: ['query'],
    additionalProperties: false,
  },
  hints: { readOnly: true, untrustedContent: true },
  run: (input) => {
    const { query } = input as { query: string }
    runs.push(`search:${query}`)
    return ok({ results: [`${query} challenge`], page: document.title })
  },
})
tm.register({
  name: 'challenge.delete',
  description: 'Delete a challenge.',
  summary: (input) => `Delete challenge ${(input as { id: number }).id}`,
  jsonSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
  hints: { destructive: true },
  run: (input) => {
    runs.push(`delete:${(input as { id: number }).id}`)
    return ok({ deleted: true })
  },
})
tm.scope('slow').register({
  name: 'wait',
  description: 'Waits until cancelled.',
  hints: { readOnly: true },
  run: (_input, ctx) =>
    new Promise<RunResult>((resolve) => {
      runs.push('wait:started')
      ctx.signal.addEventListener('abort', () => {
        aborted = true
        resolve(ok('aborted'))
      })
    }),
})

// What otel() would continue: the meta of each call (the MCP client's trace context).
const metas: unknown[] = []
tm.use((host) => host.observe({ call: (_event, meta) => void metas.push(meta ?? null) }))

tm.use(pairing)

Object.assign(window, {
  app: {
    runs,
    status: () => status,
    aborted: () => aborted,
    metas: () => metas,
    pending: () =>
      queue.getPending().map((r) => ({ confirmId: r.confirmId, tool: r.tool, summary: r.summary })),
    approve: (id: string) => queue.approve(id),
    reject: (id: string) => queue.reject(id),
  },
})
