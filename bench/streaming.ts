// A turn's server CPU with streamed replies (masked, coalesced text-delta events) against whole messages only.
// A model streams a reply of TOKENS tokens, one every GAP_MS, to CONVERSATIONS conversations at once, each with a
// chat-stream listener that serializes every event (as the SSE route does); the process's CPU time (user +
// system) is compared over alternating rounds. Two models: `bare`, a provider that hands the agent its tokens
// for free (the agent's own cost only: the worst case for the ratio), and `anthropic`, the real Anthropic
// provider reading the Messages API's server-sent events (served in process: no network) as a deployment does.
// The process CPU is noisy on a shared machine: the two paths run in interleaved pairs (A B, B A, …) after a
// warm-up of each, and the figure is the median of the pairs' ratios, with their quartiles and range. Every
// conversation's model takes its tokens from one shared clock, so both paths wake the process equally often.
// Target: streaming adds ≤ 5%. `pnpm --filter @toolmark/bench bench:streaming` (STREAMING_BENCH_MODELS=bare for one model).
// Each path has one server for the whole bench, as a deployment keeps its one server (each run brings new
// conversations, so every run's turns have the same short history), and nothing forces a garbage collection:
// collections come when the runs' own allocations call for them, and each path pays for its own. The figures are
// the ratio of all runs' CPU (streamed ÷ whole) and the median of the pairs' ratios, with their quartiles and
// range. STREAMING_BENCH_GC=1 (with node --expose-gc) collects before every run, as the bench did before; a
// forced full collection throws away optimized code that a deployment keeps (V8 compiles it again in the next
// run), which costs both paths about 3 ms per turn here. STREAMING_BENCH_CONVERSATIONS=n (default 16) runs n
// conversations at once. Each path's wake-ups (the process's voluntary context switches) per turn are printed
// too. History of the figures (2 shared cores at load average 15–20, a new server per run and a forced
// collection before each): before, bare +54% median (2.97 → 4.40 ms per turn), anthropic +20%
// (11.05 → 13.33 ms). With one flush timer for all streams and TextStream's hidden class kept alive: bare +34%
// (2.94 → 4.08), anthropic +20% (10.76 → 13.58). With the reply read outside the agent's turn function as well:
// bare +26% (2.48 → 3.07 ms, 8 pairs); the full run then: bare +27.5% (quartiles +17% to +34%, 2.11 → 2.50 ms),
// anthropic +8.0% (+3.8% to +11.4%, 7.88 → 8.28 ms), with 18 events per anthropic turn instead of 25 (a flush
// from a push used to leave its stream's timer running, which flushed again inside the interval). What the
// figures showed: both paths wake the process equally often (16 wake-ups per turn), and the main thread's
// JavaScript for streaming (TextStream, the events, the listener's JSON) is a few hundredths of a ms per turn
// (--cpu-prof). The difference was mostly V8's background threads compiling the agent's code again and again
// after each forced collection and each dropped server (--trace-opt --trace-deopt). Run one path per process
// (STREAMING_BENCH_ONLY) to see each path without the other's JIT state.
import { AnthropicProvider } from '../packages/server/src/agent/providers/anthropic.ts'
import type { Provider, ProviderEvent, ProviderRequest } from '../packages/server/src/agent/types.ts'
import { createToolmarkServer } from '../packages/server/src/server.ts'

const TOKENS = 250
const GAP_MS = 2
const CONVERSATIONS = Number(process.env.STREAMING_BENCH_CONVERSATIONS ?? 16)
const TURNS = 4
const ROUNDS = Number(process.env.STREAMING_BENCH_ROUNDS ?? 12)

const WORDS =
  'the page lists three challenges that match your search and here is what each one is about'.split(' ')

/**
 * One clock for every conversation's model: each tick, GAP_MS after the first wait, releases the next token of
 * every stream at once. So both paths wake the process equally often (a timer per conversation drifts apart by
 * the work done in between, and the wake-ups, not the server's work, then decide the CPU figure).
 */
class Ticker {
  #waiting: Array<() => void> = []
  #timer: ReturnType<typeof setTimeout> | undefined
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve)
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined
        const due = this.#waiting
        this.#waiting = []
        for (const release of due) release()
      }, GAP_MS)
    })
  }
}
const ticker = new Ticker()

/** A model streaming a long reply token by token. */
class TokenProvider implements Provider {
  readonly name = 'tokens'
  async *stream(_request: ProviderRequest): AsyncIterable<ProviderEvent> {
    for (let i = 0; i < TOKENS; i++) {
      await ticker.next()
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
        await ticker.next()
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

/** One server per model and path, kept for the whole bench as a deployment keeps its one server. */
const servers = new Map<string, ReturnType<typeof createToolmarkServer>>()
let runs = 0

/**
 * CPU milliseconds of CONVERSATIONS × TURNS turns on the path's server, and how many events the listeners got.
 * Each run has conversations of its own (a first turn's history, not one grown over the runs).
 */
async function run(
  model: string,
  streamReplies: boolean,
): Promise<{ cpuMs: number; events: number; bytes: number; wakeups: number }> {
  const key = `${model}:${streamReplies}`
  const server =
    servers.get(key) ?? createToolmarkServer({ provider: models[model]!(), streamReplies, log: () => {} })
  servers.set(key, server)
  runs++
  let events = 0
  let bytes = 0
  const conversations = await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, i) => {
      await server.store.ensureUser(`user-${runs}-${i}`)
      return server.store.createConversation(`user-${runs}-${i}`)
    }),
  )
  const stops = conversations.map((c) =>
    server.events.subscribe(c.id, (event) => {
      events++
      bytes += JSON.stringify(event).length
    }),
  )
  if (process.env.STREAMING_BENCH_GC) (globalThis as { gc?: () => void }).gc?.()
  const switches = process.resourceUsage().voluntaryContextSwitches
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
  const wakeups = process.resourceUsage().voluntaryContextSwitches - switches
  for (const stop of stops) stop()
  return { cpuMs: (used.user + used.system) / 1000, events, bytes, wakeups }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.round((values.length - 1) * q)]!
const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`

// STREAMING_BENCH_MODELS=bare (a comma-separated list) runs only those models, e.g. under --cpu-prof.
const chosen = process.env.STREAMING_BENCH_MODELS?.split(',') ?? Object.keys(models)
// STREAMING_BENCH_ONLY=whole or =streamed runs one path alone in this process (compare two processes): the
// interleaved pairs share one JIT, and the paths' different code weighs on each other there.
const only = process.env.STREAMING_BENCH_ONLY
if (only !== undefined && only !== 'whole' && only !== 'streamed')
  throw new Error('STREAMING_BENCH_ONLY is whole or streamed')
for (const model of only ? chosen : []) {
  await run(model, only === 'streamed')
  await run(model, only === 'streamed')
  const cpu: number[] = []
  for (let round = 0; round < ROUNDS; round++) cpu.push((await run(model, only === 'streamed')).cpuMs)
  const turns = CONVERSATIONS * TURNS
  console.log(
    `streaming bench (${model} model, ${only} only): ${(median(cpu) / turns).toFixed(2)} ms CPU per turn (quartiles ${(quantile(cpu, 0.25) / turns).toFixed(2)}–${(quantile(cpu, 0.75) / turns).toFixed(2)}), ${ROUNDS} runs of ${turns} turns`,
  )
}
for (const model of only ? [] : chosen) {
  if (!models[model]) throw new Error(`no model ${model}: ${Object.keys(models).join(', ')}`)
  // Warm-up, not counted: the module graph and the JIT, for both paths.
  await run(model, false)
  await run(model, true)
  const whole: number[] = []
  const streamed: number[] = []
  const ratios: number[] = []
  let counts = { whole: 0, streamed: 0 }
  const sleeps = { whole: [] as number[], streamed: [] as number[] }
  for (let round = 0; round < ROUNDS; round++) {
    // Pairs in alternating order (A B, B A, …), so a drift of the machine's load falls on both paths alike.
    const first = round % 2 === 0
    const a = await run(model, !first)
    const b = await run(model, first)
    const [w, s] = first ? [a, b] : [b, a]
    whole.push(w.cpuMs)
    streamed.push(s.cpuMs)
    ratios.push(s.cpuMs / w.cpuMs)
    counts = { whole: w.events, streamed: s.events }
    sleeps.whole.push(w.wakeups)
    sleeps.streamed.push(s.wakeups)
  }
  const turns = CONVERSATIONS * TURNS
  const perTurn = (values: number[]) =>
    `${(median(values) / turns).toFixed(2)} ms CPU per turn (quartiles ${(quantile(values, 0.25) / turns).toFixed(2)}–${(quantile(values, 0.75) / turns).toFixed(2)})`
  console.log(
    `streaming bench (${model} model): ${ROUNDS} interleaved pairs of ${turns} turns each, ${TOKENS} tokens ${GAP_MS} ms apart; warm-up excluded`,
  )
  console.log(
    `  whole messages: ${perTurn(whole)}, ${(counts.whole / turns).toFixed(1)} events per turn, ${(median(sleeps.whole) / turns).toFixed(1)} wake-ups per turn`,
  )
  console.log(
    `  streamed:       ${perTurn(streamed)}, ${(counts.streamed / turns).toFixed(1)} events per turn, ${(median(sleeps.streamed) / turns).toFixed(1)} wake-ups per turn`,
  )
  console.log(
    `  streamed / whole, all runs: ${pct(streamed.reduce((a, b) => a + b) / whole.reduce((a, b) => a + b))}`,
  )
  console.log(
    `  streamed / whole, per pair: median ${pct(median(ratios))}, quartiles ${pct(quantile(ratios, 0.25))} to ${pct(quantile(ratios, 0.75))}, range ${pct(Math.min(...ratios))} to ${pct(Math.max(...ratios))} (target ≤ +5%)`,
  )
}
for (const server of servers.values()) await server.close()
