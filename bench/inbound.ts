// The bridge's inbound call: a `call` message in, its `result` out, over the in-page channel, with `bridge()`
// and with `progressBridge()` (the progress extension accepted, so its id map is in use), each against a floor
// measured in the same run: a JSON copy of the call and of its result around a minimal registry. The three run
// in rotating batches, each timed by the process's CPU time (not the wall clock, which a busy machine
// stretches). Nothing asserts; the goal is printed beside the figures. `pnpm --filter @toolmark/bench
// bench:inbound`.
// Goal: a plain bridge() pays nothing for the progress extension (its ratio to the floor is the same with or
// without progressBridge on the page); progressBridge() pays for its own id map only.
// Last runs (2026-12-07, 2 shared cores at load average ~16, two runs each, CPU per call): before (every inbound
// call went through host.run with the meta { id }, and progressBridge observed every call and result) bridge()
// 3.11× and 2.17× floor, progressBridge() 3.85× and 2.58×; after (the bridge tells progressBridge its calls' ids
// itself, and runs them with tm.call) bridge() 2.52× and 2.45×, progressBridge() 2.69× and 2.79×, progressBridge
// / bridge() 1.07× and 1.14× (before: 1.24× and 1.19×). The machine's noise is about as large as the change.
import { bridge } from '@toolmark/bridge'
import { createInPageChannel } from '@toolmark/bridge/in-page'
import { progressBridge } from '@toolmark/bridge/progress'
import { ok, type ToolmarkConsumer } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { createTestToolmark } from '@toolmark/core/testing'
import * as z from 'zod'

environment.setIsServer(false)

const BATCH = 2000
const ROUNDS = 25
const schema = z.object({ query: z.string() })
const callMsg = {
  protocol: 1,
  type: 'call',
  clientId: 'c',
  id: '7d0c5f0e-0000-4000-8000-000000000000',
  rev: 3,
  tool: 'search',
  input: { query: 'robotics' },
}

/** A page with one tool and `consumer` attached, and a function that does one call → result round trip. */
function page(
  consumer: (transport: ReturnType<typeof createInPageChannel>['transport']) => ToolmarkConsumer,
) {
  const tm = createTestToolmark({ dev: false })
  tm.register({
    name: 'search',
    description: 'Search',
    input: schema,
    hints: { readOnly: true },
    run: ({ query }) => ok(query),
  })
  const { transport, agent } = createInPageChannel()
  tm.use(consumer(transport))
  const waiting = new Map<string, () => void>()
  agent.onMessage((m) => {
    const msg = m as { type: string; id?: string }
    if (msg.type === 'result' && msg.id) waiting.get(msg.id)?.()
  })
  // The server side of the progress extension: it accepts the offer (a plain bridge never makes one).
  agent.send({ protocol: 1, type: 'extensions', clientId: 'c', accept: ['progress'] })
  let seq = 0
  return () =>
    new Promise<void>((resolve) => {
      const id = `id-${seq++}`
      waiting.set(id, () => {
        waiting.delete(id)
        resolve()
      })
      agent.send({ ...callMsg, id })
    })
}

const minimal = new Map([['search', (input: { query: string }) => ok(input.query)]])
const floor = async () => {
  const msg = JSON.parse(JSON.stringify(callMsg)) as typeof callMsg
  const result = await minimal.get(msg.tool)!(msg.input)
  return JSON.parse(JSON.stringify({ protocol: 1, type: 'result', clientId: 'c', id: msg.id, result }))
}
const plain = page((transport) => bridge({ transport, clientId: 'c' }))
const withProgress = page((transport) => progressBridge({ transport, clientId: 'c' }))

/** CPU time (user + system, ms) per operation of one batch: other processes' load on the machine does not count. */
async function batch(fn: () => unknown): Promise<number> {
  const start = process.cpuUsage()
  for (let i = 0; i < BATCH; i++) await fn()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000 / BATCH
}

// Warm-up, then the three in rotating order each round, so a drift of the machine weighs on all alike.
const subjects = { floor, plain, progress: withProgress }
for (const fn of Object.values(subjects)) for (let i = 0; i < 3; i++) await batch(fn)
const times = { floor: [] as number[], plain: [] as number[], progress: [] as number[] }
const names = Object.keys(subjects) as Array<keyof typeof subjects>
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(r + k) % names.length]!
    times[name].push(await batch(subjects[name]))
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
const us = (ms: number) => `${(ms * 1000).toFixed(2)} µs`
const f = median(times.floor)
const p = median(times.plain)
const g = median(times.progress)
console.log(
  `Inbound call (call → result over the in-page channel), Node ${process.version}: CPU per call, medians of ${ROUNDS} rotating batches of ${BATCH}`,
)
console.log(`  floor (JSON copies + a Map registry): ${us(f)}`)
console.log(`  bridge():                             ${us(p)} (${(p / f).toFixed(2)}× floor)`)
console.log(`  progressBridge(), extension accepted: ${us(g)} (${(g / f).toFixed(2)}× floor)`)
console.log(
  `  progressBridge() / bridge():          ${(g / p).toFixed(2)}× (its id map and its progress observer)`,
)
