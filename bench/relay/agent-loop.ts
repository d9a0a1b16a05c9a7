// Measurement: whole agent turns with a scripted provider (no LLM), from the model's `page_call` to
// the tool result handed back to the model, split into the time inside `Relay.request` (page
// included) and the loop's own server-side work. Floor: the raw `ws` echo of request.ts.
import { performance } from 'node:perf_hooks'
import type { Provider, ProviderEvent, ProviderRequest } from '@toolmark/server'
import type { Conversation } from '@toolmark/server/store'
import type { RunningServer } from '@toolmark-apps/agent-server'
import { ms, percentile, QUERY, row, TOOL, times } from './shared.ts'

const AGENT_WARM_TURNS = 100
export const AGENT_TURNS = 300

/** A provider that always calls `page_call(TOOL)` and records how long the tool result took to come back. */
export class ScriptedProvider implements Provider {
  readonly name = 'bench-scripted'
  latencies: number[] = []
  failures = 0
  #sentAt = 0
  #n = 0

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const last = request.messages.at(-1)
    if (last?.role === 'tool') {
      this.latencies.push(performance.now() - this.#sentAt)
      if (!last.content.includes('"status":"ok"')) this.failures++
      yield { type: 'text', delta: 'Done.' }
      return
    }
    const call = {
      id: `bench-${this.#n++}`,
      name: 'page_call',
      input: { tool: TOOL, input: { query: QUERY } },
    }
    this.#sentAt = performance.now()
    yield { type: 'tool_call', call }
  }
}

/**
 * Runs agent turns whose scripted model calls `page_call(TOOL)`. Returns (sorted) the model's
 * page_call → tool result times, the part spent inside `Relay.request` (page included), and the rest:
 * the loop's own server-side work (history, SQLite, masking, events, rendering the manifest).
 */
export async function agentTurns(
  server: RunningServer,
  provider: ScriptedProvider,
  conversation: Conversation,
) {
  const inRelay: number[] = []
  const request = server.relay.request.bind(server.relay)
  server.relay.request = async (...args) => {
    const t0 = performance.now()
    const outcome = await request(...args)
    inRelay.push(performance.now() - t0)
    return outcome
  }
  try {
    for (let i = 0; i < AGENT_WARM_TURNS + AGENT_TURNS; i++) {
      if (i === AGENT_WARM_TURNS) {
        inRelay.length = 0
        provider.latencies = []
        provider.failures = 0
      }
      server.agent.post(conversation, 'search for chess')
      await server.agent.idle(conversation.id)
    }
  } finally {
    server.relay.request = request
  }
  const sort = (values: number[]) => [...values].sort((a, b) => a - b)
  return {
    total: sort(provider.latencies),
    inRelay: sort(inRelay),
    own: sort(provider.latencies.map((t, i) => t - (inRelay[i] ?? 0))),
    failures: provider.failures,
  }
}

/** The table rows of one {@link agentTurns} run, against the floor's sorted latencies. */
export function agentRows(label: string, run: Awaited<ReturnType<typeof agentTurns>>, floor: number[]): void {
  const p50 = (sorted: number[]) => percentile(sorted, 0.5)
  const p99 = (sorted: number[]) => percentile(sorted, 0.99)
  const fp50 = p50(floor)
  const fp99 = p99(floor)
  const total = p50(run.total)
  row(`agent page_call → tool result, p50 (${label})`, ms(total), ms(fp50), times(total, fp50))
  row(
    `agent page_call → tool result, p99 (${label})`,
    ms(p99(run.total)),
    ms(fp99),
    times(p99(run.total), fp99),
  )
  row(
    '  of which in Relay.request (page included), p50',
    ms(p50(run.inRelay)),
    ms(fp50),
    times(p50(run.inRelay), fp50),
  )
  row(
    '  agent loop’s own server work, p50 / p99',
    `${ms(p50(run.own))} / ${ms(p99(run.own))}`,
    '',
    '',
    '≤ 2 ms (p50)',
  )
  row('  agent overhead p50 (ours − floor)', ms(total - fp50), '', '', '≤ 2 ms on loopback')
}
