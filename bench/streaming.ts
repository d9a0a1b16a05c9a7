// A turn's server CPU with streamed replies (masked, coalesced text-delta events) against whole messages only.
// A provider streams a reply of TOKENS tokens, one every GAP_MS (as a model does), to CONVERSATIONS
// conversations at once, each with a chat-stream listener that serializes every event (as the SSE route does);
// the process's CPU time (user + system) is compared over alternating rounds. Target: streaming adds ≤ 5%.
// `pnpm --filter @toolmark/bench bench:streaming`.
import type { Provider, ProviderEvent, ProviderRequest } from '../packages/server/src/agent/types.ts'
import { createToolmarkServer } from '../packages/server/src/server.ts'

const TOKENS = 250
const GAP_MS = 2
const CONVERSATIONS = 16
const TURNS = 3
const ROUNDS = 4

const WORDS =
  'the page lists three challenges that match your search and here is what each one is about'.split(' ')

/** A model streaming a long reply token by token. */
class TokenProvider implements Provider {
  readonly name = 'tokens'
  async *stream(_request: ProviderRequest): AsyncIterable<ProviderEvent> {
    for (let i = 0; i < TOKENS; i++) {
      await new Promise((resolve) => setTimeout(resolve, GAP_MS))
      yield { type: 'text', delta: `${WORDS[i % WORDS.length]}${i % 17 === 16 ? '. ' : ' '}` }
    }
  }
}

/** CPU milliseconds of CONVERSATIONS × TURNS turns, and how many events the listeners got. */
async function run(streamReplies: boolean): Promise<{ cpuMs: number; events: number; bytes: number }> {
  const server = createToolmarkServer({ provider: new TokenProvider(), streamReplies, log: () => {} })
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

await run(true) // warm-up: module graph, JIT
const whole: number[] = []
const streamed: number[] = []
let counts = { whole: 0, streamed: 0 }
for (let round = 0; round < ROUNDS; round++) {
  const w = await run(false)
  const s = await run(true)
  whole.push(w.cpuMs)
  streamed.push(s.cpuMs)
  counts = { whole: w.events, streamed: s.events }
}
const turns = CONVERSATIONS * TURNS
const ratio = median(streamed) / median(whole)
console.log(
  `streaming bench: ${turns} turns of ${TOKENS} tokens (${GAP_MS} ms apart), median of ${ROUNDS} rounds`,
)
console.log(
  `  whole messages: ${(median(whole) / turns).toFixed(2)} ms CPU per turn, ${counts.whole / turns} events per turn`,
)
console.log(
  `  streamed:       ${(median(streamed) / turns).toFixed(2)} ms CPU per turn, ${counts.streamed / turns} events per turn`,
)
console.log(
  `  ratio streamed / whole: ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)}% added; target ≤ 5%)`,
)
