// Toolmark benchmarks: every figure is printed next to a floor measured in the same run, as a ratio.
// Nothing here asserts: goals are printed beside the figures. Run with `pnpm bench`.
import { performance } from 'node:perf_hooks'
import { bridge } from '@toolmark/bridge'
import { createInPageChannel } from '@toolmark/bridge/in-page'
import { websocketTransport } from '@toolmark/bridge/websocket'
import { createToolmark, ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { createTestToolmark } from '@toolmark/core/testing'
import { boundedCopy, validateMessage } from '@toolmark/protocol'
import { WebSocket, WebSocketServer } from 'ws'
import * as z from 'zod'
import { compareBatches } from './compare.ts'

environment.setIsServer(false)
const rows: string[][] = []
const us = (ms: number) => ms * 1000

/** Median per-operation time (ms) over `rounds` batches of `batch` operations. */
async function measure(fn: () => unknown, batch = 2000, rounds = 25): Promise<number> {
  for (let i = 0; i < batch; i++) await fn() // warm up
  const per: number[] = []
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now()
    for (let i = 0; i < batch; i++) await fn()
    per.push((performance.now() - t0) / batch)
  }
  per.sort((a, b) => a - b)
  return per[Math.floor(per.length / 2)]!
}

/**
 * Median per-operation times (ms) of `ours` and its `floor`, measured in alternating batches
 * (`compareBatches`) so that the machine's load and the JIT's state weigh on both alike: the ratio
 * of the two is what the goals are about, and it holds on a busy machine where two separate runs
 * would not.
 */
async function measurePair(
  ours: () => unknown,
  floor: () => unknown,
  batch = 2000,
  rounds = 25,
): Promise<{ ours: number; floor: number }> {
  const [a, b] = await compareBatches(ours, floor, batch, rounds)
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
  return { ours: median(a), floor: median(b) }
}

function syncMeasure(fn: () => unknown, batch = 2000, rounds = 25): number {
  for (let i = 0; i < batch; i++) fn()
  const per: number[] = []
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now()
    for (let i = 0; i < batch; i++) fn()
    per.push((performance.now() - t0) / batch)
  }
  per.sort((a, b) => a - b)
  return per[Math.floor(per.length / 2)]!
}

function row(what: string, ms: number, floorMs: number | undefined, goal: string) {
  rows.push([
    what,
    ms < 1 ? `${us(ms).toFixed(3)} µs` : `${ms.toFixed(3)} ms`,
    floorMs === undefined ? '' : floorMs < 1 ? `${us(floorMs).toFixed(3)} µs` : `${floorMs.toFixed(3)} ms`,
    floorMs === undefined ? '' : `${(ms / floorMs).toFixed(2)}×`,
    goal,
  ])
}

// ── Registry: tm.call ──────────────────────────────────────────────────────────
const schema = z.object({ query: z.string() })
const bareRun = async (input: { query: string }) => ok(input.query)
const floor = await measure(async () => {
  const r = schema['~standard'].validate({ query: 'robotics' }) as { value: { query: string } }
  return bareRun(r.value)
})
const tm = createToolmark()
tm.register({
  name: 'search',
  description: 'Search',
  input: schema,
  hints: { readOnly: true },
  run: ({ query }) => ok(query),
})
const call = await measure(() => tm.call('search', { query: 'robotics' }, { caller: 'inapp' }))
row('tm.call readOnly zod { query } (median)', call, floor, '≤ 1.0 µs')

// The floor a demanding user compares with: a 40-line registry that does the least a safe one must
// (a Map lookup, the Standard Schema validation, the run, a JSON copy of the result so the caller
// never shares the tool's objects, and no throw escaping; no await where nothing is asynchronous).
// Toolmark adds policy, scopes, the queue, deadlines, confirmation and events on top.
class MinimalRegistry {
  readonly #tools = new Map<string, { input: typeof schema; run: (input: { query: string }) => unknown }>()
  register(name: string, input: typeof schema, run: (input: { query: string }) => unknown): void {
    this.#tools.set(name, { input, run })
  }
  async call(name: string, input: unknown): Promise<unknown> {
    const tool = this.#tools.get(name)
    if (!tool) return { status: 'refused', code: 'unknown_tool' }
    try {
      const checked = tool.input['~standard'].validate(input)
      const result = checked instanceof Promise ? await checked : checked
      if (result.issues) return { status: 'invalid', issues: result.issues }
      const ran = tool.run(result.value)
      const out = ran instanceof Promise ? await ran : ran
      return JSON.parse(JSON.stringify(out))
    } catch {
      return { status: 'error', message: 'The tool failed' }
    }
  }
}
const minimalRegistry = new MinimalRegistry()
minimalRegistry.register('search', schema, ({ query }) => ok(query))
const againstRegistry = await measurePair(
  () => tm.call('search', { query: 'robotics' }, { caller: 'inapp' }),
  () => minimalRegistry.call('search', { query: 'robotics' }),
)
row(
  'tm.call against a 40-line registry (Map + validate + run + JSON copy)',
  againstRegistry.ours,
  againstRegistry.floor,
  '≤ 1.6× floor',
)

const badFloor = syncMeasure(() => schema['~standard'].validate({ query: 1 }))
const bad = await measure(() => tm.call('search', { query: 1 }, { caller: 'inapp' }))
row('tm.call invalid input', bad, badFloor, '≤ schema cost + 0.5 µs')

// Per-call distribution: each call timed on its own (includes ~0.05 µs of performance.now()).
// Tail percentiles of a tight await loop are sensitive to V8's JIT state, so the loop runs three
// times and the best of the three p99s is kept, for ours and for the floor alike.
async function singly(fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  let best = { p50: Number.POSITIVE_INFINITY, p99: Number.POSITIVE_INFINITY }
  for (let round = 0; round < 3; round++) {
    const times: number[] = []
    for (let i = 0; i < 50_000; i++) {
      const t0 = performance.now()
      await fn()
      times.push(performance.now() - t0)
    }
    times.sort((a, b) => a - b)
    const p99 = times[49_500]!
    if (p99 < best.p99) best = { p50: times[25_000]!, p99 }
  }
  return best
}
{
  const bare = await singly(async () => {
    const r = schema['~standard'].validate({ query: 'robotics' }) as { value: { query: string } }
    return bareRun(r.value)
  })
  const ours = await singly(() => tm.call('search', { query: 'robotics' }, { caller: 'inapp' }))
  row('tm.call readOnly, p50 per call (timed singly)', ours.p50, bare.p50, '')
  row('tm.call readOnly, p99 per call (timed singly)', ours.p99, bare.p99, 'never > 2 µs')
}

// ── Registration, describe, manifest ───────────────────────────────────────────
{
  const reg = createToolmark()
  let n = 0
  const schemaBuild = syncMeasure(() => z.object({ query: z.string() }), 500, 15)
  const registerDispose = syncMeasure(
    () => {
      reg
        .register({
          name: `t${n++}`,
          description: 'd',
          input: schema,
          hints: { readOnly: true },
          run: () => ok(),
        })
        .dispose()
    },
    500,
    15,
  )
  row('register + dispose (schema prebuilt)', registerDispose, schemaBuild, '≤ 5 µs beyond the schema build')
  reg.register({ name: 'd', description: 'd', input: schema, hints: { readOnly: true }, run: () => ok() })
  reg.describe('d')
  row(
    'describe, repeated (cached)',
    syncMeasure(() => reg.describe('d'), 5000),
    undefined,
    '≤ 1 µs',
  )
}
for (const count of [40, 1000]) {
  const m = createToolmark({ budget: 5000 })
  for (let i = 0; i < count; i++) {
    m.register({
      name: `tool.n${i}`,
      description: `Tool number ${i} does things.`,
      input: schema,
      hints: { readOnly: true },
      run: () => ok(),
    })
  }
  const stringify = syncMeasure(
    () => JSON.stringify(m.manifest({ caller: 'inapp' })),
    count === 40 ? 2000 : 50,
    15,
  )
  row(
    `manifest() + JSON.stringify, ${count} tools (cached rev)`,
    stringify,
    undefined,
    count === 40 ? '≤ 40 µs' : '≤ 1 ms',
  )
  let k = 0
  const fresh = syncMeasure(
    () => {
      m.register({ name: `x${k++}`, description: 'd', hints: { readOnly: true }, run: () => ok() }).dispose()
      return JSON.stringify(m.manifest({ caller: 'inapp' }))
    },
    count === 40 ? 500 : 20,
    10,
  )
  row(`manifest() + JSON.stringify, ${count} tools (new rev each time)`, fresh, undefined, '')
}
{
  const m = createToolmark()
  let notes = 0
  m.subscribe(() => notes++)
  const handles = Array.from({ length: 1000 }, (_, i) =>
    m.register({ name: `b${i}`, description: 'd', hints: { readOnly: true }, run: () => ok() }),
  )
  for (const h of handles) h.dispose()
  await new Promise((r) => setTimeout(r, 0))
  rows.push(['register + dispose 1,000 tools → notifications', String(notes), '', '', '1'])
}

// ── Protocol and bridge ────────────────────────────────────────────────────────
const callMsg = {
  protocol: 1,
  type: 'call',
  clientId: 'c',
  id: '7d0c5f0e-0000-4000-8000-000000000000',
  rev: 3,
  tool: 'search',
  input: { query: 'robotics' },
}
row(
  'validateMessage(small call)',
  syncMeasure(() => validateMessage(callMsg, 'toPage'), 20000),
  undefined,
  '≤ 1 µs',
)

{
  // Floor: a JSON copy of a call and its result around a minimal registry.
  const minimal = new Map([['search', (input: { query: string }) => ok(input.query)]])
  const floorOnce = async () => {
    const msg = JSON.parse(JSON.stringify(callMsg)) as typeof callMsg
    const result = await minimal.get(msg.tool)!(msg.input)
    return JSON.parse(JSON.stringify({ protocol: 1, type: 'result', clientId: 'c', id: msg.id, result }))
  }
  const floorRt = await measure(floorOnce)
  const page = createTestToolmark({ dev: false })
  page.register({
    name: 'search',
    description: 'Search',
    input: schema,
    hints: { readOnly: true },
    run: ({ query }) => ok(query),
  })
  const { transport, agent } = createInPageChannel()
  page.use(bridge({ transport, clientId: 'c' }))
  const waiting = new Map<string, () => void>()
  agent.onMessage((m) => {
    const msg = m as { type: string; id?: string }
    if (msg.type === 'result' && msg.id) waiting.get(msg.id)?.()
  })
  let seq = 0
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      const id = `id-${seq++}`
      waiting.set(id, () => {
        waiting.delete(id)
        resolve()
      })
      agent.send({ ...callMsg, id })
    })
  const rt = await measure(roundTrip, 2000, 15)
  row('in-page bridge round trip (call → result)', rt, floorRt, '≤ 6 µs')
  const paired = await measurePair(roundTrip, floorOnce, 2000, 15)
  row('in-page bridge round trip, alternating with its floor', paired.ours, paired.floor, '≤ 1.5× floor')
  // Each round trip timed on its own, like tm.call above (best p99 of three loops).
  const bareRt = await singly(floorOnce)
  const oursRt = await singly(roundTrip)
  row('in-page bridge round trip, p50 per call (timed singly)', oursRt.p50, bareRt.p50, '')
  row('in-page bridge round trip, p99 per call (timed singly)', oursRt.p99, bareRt.p99, '')
}

{
  // A 1 MiB inbound message: floor = UTF-8 length + JSON.parse + depth walk.
  const big = JSON.stringify({
    ...callMsg,
    input: { rows: Array.from({ length: 9000 }, (_, i) => ({ i, text: 'x'.repeat(100) })) },
  })
  const walk = (v: unknown, d: number): number => {
    if (v === null || typeof v !== 'object') return d
    let m = d
    for (const x of Object.values(v)) m = Math.max(m, walk(x, d + 1))
    return m
  }
  const floorBig = syncMeasure(
    () => {
      Buffer.byteLength(big)
      return walk(JSON.parse(big), 1)
    },
    5,
    9,
  )
  const ours = syncMeasure(
    () => {
      const parsed = JSON.parse(big) // what the WebSocket transport does, once
      const copied = boundedCopy(parsed, { maxBytes: 1048576 })
      return copied.ok && validateMessage(copied.value, 'toPage')
    },
    5,
    9,
  )
  rows.push(['(message size)', `${(Buffer.byteLength(big) / 1048576).toFixed(2)} MiB`, '', '', ''])
  row('1 MiB inbound: parse + boundedCopy + validate', ours, floorBig, '≤ 1.3× floor')
}

// ── WebSocket transport against a loopback ws echo ─────────────────────────────
{
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  wss.on('connection', (s) => s.on('message', (data) => s.send(data.toString())))
  await new Promise((r) => wss.once('listening', r))
  const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`
  const payload = JSON.stringify({
    protocol: 1,
    type: 'result',
    clientId: 'c',
    id: 'x',
    result: { status: 'ok', data: 'y'.repeat(900) },
  })
  const N = 3000
  const lat = async (send: (s: string) => void, onMsg: (cb: () => void) => void) => {
    const times: number[] = []
    let resolveOne: () => void = () => {}
    onMsg(() => resolveOne())
    for (let i = 0; i < N; i++) {
      const t0 = performance.now()
      await new Promise<void>((r) => {
        resolveOne = r
        send(payload)
      })
      times.push(performance.now() - t0)
    }
    times.sort((a, b) => a - b)
    return { p50: times[Math.floor(N / 2)]!, p99: times[Math.floor(N * 0.99)]! }
  }
  const pipelined = async (send: (s: string) => void, onMsg: (cb: () => void) => void) => {
    let got = 0
    let sent = 0
    const total = 20000
    const t0 = performance.now()
    await new Promise<void>((done) => {
      onMsg(() => {
        got++
        if (got === total) done()
        else if (sent < total) {
          sent++
          send(payload)
        }
      })
      for (let i = 0; i < 16; i++) {
        sent++
        send(payload)
      }
    })
    return total / ((performance.now() - t0) / 1000)
  }
  // Floor: a raw ws client doing the JSON work any JSON transport must do (stringify out, parse in).
  const raw = new WebSocket(url)
  await new Promise((r) => raw.once('open', r))
  let rawCb: () => void = () => {}
  raw.on('message', (data) => {
    JSON.parse(data.toString())
    rawCb()
  })
  const rawMsg = JSON.parse(payload)
  const rawLat = await lat(
    () => raw.send(JSON.stringify(rawMsg)),
    (cb) => (rawCb = cb),
  )
  const rawTp = await pipelined(
    () => raw.send(JSON.stringify(rawMsg)),
    (cb) => (rawCb = cb),
  )
  raw.close()
  // Ours: websocketTransport (JSON in and out).
  const t = websocketTransport({ url, WebSocket: WebSocket as never })
  let cb: () => void = () => {}
  t.onMessage(() => cb())
  await new Promise((r) => setTimeout(r, 100))
  const msg = JSON.parse(payload)
  const ourLat = await lat(
    () => t.send(msg),
    (c) => (cb = c),
  )
  const ourTp = await pipelined(
    () => t.send(msg),
    (c) => (cb = c),
  )
  await t.close?.()
  wss.close()
  row('WebSocket transport p50 (1 KB JSON)', ourLat.p50, rawLat.p50, '≤ 1.15× floor')
  row('WebSocket transport p99', ourLat.p99, rawLat.p99, '≤ 1.5× floor')
  rows.push([
    'WebSocket pipelined (16 in flight)',
    `${Math.round(ourTp)} msg/s`,
    `${Math.round(rawTp)} msg/s`,
    `${(ourTp / rawTp).toFixed(2)}×`,
    '≥ 0.8× floor',
  ])
}

const widths = [0, 1, 2, 3, 4].map((i) =>
  Math.max(...[['what', 'figure', 'floor', 'ratio', 'goal'], ...rows].map((r) => r[i]!.length)),
)
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')
console.log(`Node ${process.version}, ${new Date().toISOString()}`)
console.log(line(['what', 'figure', 'floor', 'ratio', 'goal']))
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'))
for (const r of rows) console.log(line(r))
process.exit(0)
