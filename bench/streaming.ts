// A turn's server CPU with streamed replies (masked, coalesced text-delta events) against whole messages only.
// A model streams a reply of TOKENS tokens, one every GAP_MS, to CONVERSATIONS conversations at once, each with a
// chat-stream listener that serializes every event (as the SSE route does); the process's CPU time (user +
// system) is compared over alternating rounds. Two models: `bare`, a provider that hands the agent its tokens
// for free (the agent's own cost only: the worst case for the ratio), and `anthropic`, the real Anthropic
// provider reading the Messages API's server-sent events (served in process: no network) as a deployment does.
// The process CPU is noisy on a shared machine: compare medians of several rounds. Target: streaming adds ≤ 5%. `pnpm --filter @toolmark/bench bench:streaming`.
import { AnthropicProvider } from '../packages/server/src/agent/providers/anthropic.ts'
import type { Provider, ProviderEvent, ProviderRequest } from '../packages/server/src/agent/types.ts'
import { createToolmarkServer } from '../packages/server/src/server.ts'

const TOKENS = 250
const GAP_MS = 2
const CONVERSATIONS = 16
const TURNS = 4
const ROUNDS = 7

const WORDS =
  'the page lists three challenges that match your search and here is what each one is about'.split(' ')

/** A model streaming a long reply token by token. */
class TokenProvider implements Provider {
  readonly name = 'tokens'
  async *stream(_request: ProviderRequest): AsyncIterable<ProviderEvent> {
    for (let i = 0; i < TOKENS; i++) {
      await new Promise((resolve) => setTimeout(resolve, GAP_MS))
      yield { type: 'text', delta: token(i) }
    }
  }
}

const token = (i: number) => `${WORDS[i % WORDS.length]}${i % 17 === 16 ? '. ' : ' '}`

/** The Messages API's event stream of a TOKENS-token reply, one delta every GAP_MS. */
function anthropicStream(): Response {
  const encoder = new TextEncoder()
  const sse = (type: string, data: unknown) =>
    encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`)
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(
        sse('message_start', {
          type: 'message_start',
          message: {
            id: 'msg_bench',
            type: 'message',
            role: 'assistant',
            model: 'bench',
            content: [],
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        }),
      )
      controller.enqueue(
        sse('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
      )
      for (let i = 0; i < TOKENS; i++) {
        await new Promise((resolve) => setTimeout(resolve, GAP_MS))
        controller.enqueue(
          sse('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: token(i) },
          }),
        )
      }
      controller.enqueue(sse('content_block_stop', { type: 'content_block_stop', index: 0 }))
      controller.enqueue(
        sse('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: TOKENS },
        }),
      )
      controller.enqueue(sse('message_stop', { type: 'message_stop' }))
      controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
}

const models: Record<string, () => Provider> = {
  bare: () => new TokenProvider(),
  anthropic: () =>
    new AnthropicProvider({ apiKey: 'bench', model: 'bench', fetch: async () => anthropicStream() }),
}

/** CPU milliseconds of CONVERSATIONS × TURNS turns, and how many events the listeners got. */
async function run(
  model: string,
  streamReplies: boolean,
): Promise<{ cpuMs: number; events: number; bytes: number }> {
  const server = createToolmarkServer({ provider: models[model]!(), streamReplies, log: () => {} })
  let events = 0
  let bytes = 0
  const conversations = await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, i) => {
      await server.store.ensureUser(`user-${i}`)
      return server.store.createConversation(`user-${i}`)
    }),
  )
  const stops = conversations.map((c) =>
    server.events.subscribe(c.id, (event) => {
      events++
      bytes += JSON.stringify(event).length
    }),
  )
  // A collection owed by the previous run is not counted in this one (with --expose-gc).
  ;(globalThis as { gc?: () => void }).gc?.()
  const start = process.cpuUsage()
  for (let turn = 0; turn < TURNS; turn++) {
    await Promise.all(
      conversations.map(async (c) => {
        await server.agent.post(c, 'what are the challenges about?')
        await server.agent.idle(c.id)
      }),
    )
  }
  const used = process.cpuUsage(start)
  for (const stop of stops) stop()
  await server.close()
  return { cpuMs: (used.user + used.system) / 1000, events, bytes }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

for (const model of Object.keys(models)) {
  await run(model, true) // warm-up: module graph, JIT
  const whole: number[] = []
  const streamed: number[] = []
  let counts = { whole: 0, streamed: 0 }
  for (let round = 0; round < ROUNDS; round++) {
    const w = await run(model, false)
    const s = await run(model, true)
    whole.push(w.cpuMs)
    streamed.push(s.cpuMs)
    counts = { whole: w.events, streamed: s.events }
  }
  const turns = CONVERSATIONS * TURNS
  const ratio = median(streamed) / median(whole)
  console.log(
    `streaming bench (${model} model): ${turns} turns of ${TOKENS} tokens (${GAP_MS} ms apart), median of ${ROUNDS} rounds`,
  )
  console.log(
    `  whole messages: ${(median(whole) / turns).toFixed(2)} ms CPU per turn, ${(counts.whole / turns).toFixed(1)} events per turn`,
  )
  console.log(
    `  streamed:       ${(median(streamed) / turns).toFixed(2)} ms CPU per turn, ${(counts.streamed / turns).toFixed(1)} events per turn`,
  )
  console.log(
    `  ratio streamed / whole: ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)}% added; target ≤ 5%)`,
  )
}
