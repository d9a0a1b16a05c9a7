// Abuse benchmark: what one abusive client costs a normal one. The server (abuse-server.ts: `@toolmark/server` with
// the offline planner, in-memory store, demo session cookie) runs alone in a child process, the normal client
// here, the abusive client in a third process. Printed figures only, nothing asserts. Run with
// `pnpm --filter @toolmark/bench bench:abuse`; BENCH_ABUSE=bodies|texts|connections (comma-separated) runs only
// those kinds of abuse, BENCH_TURNS (default 30) sets the normal client's turns per phase.
//
// A normal client's turn: POST a chat message, then wait on its chat event stream until the turn ends (`busy:
// false`); and one small `POST /v1/chat/completions`. Measured alone, then while one abusive client (4 loops at
// once, each with its own session) sends, over and over:
//   - 48 MiB streamed bodies to `POST /v1/chat/completions` and to its messages route,
//   - 4000-character messages (the longest allowed) and 4001-character ones,
//   - 5 MiB bodies to the bridge's `POST /toolmark/messages`,
//   - page connections (sockets and event streams) and chat event streams until refused, then closes them.
// Phases alternate (alone, abused) for BENCH_ROUNDS rounds (default 3): `ratio` is abused ÷ alone, per round, and
// their median. The server's event-loop delay (max, p99) and peak RSS (sampled every 5 ms) are read per phase.
// The machine's other processes share its cores: the figures of one run move with them.
import { fork } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { mb, median, ms, percentile, print, row, step } from './relay/shared.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const TURNS = Number(process.env.BENCH_TURNS ?? 30)
const ABUSERS = 4
/** Which abuse runs (comma-separated): `bodies` (oversize bodies), `texts` (longest texts), `connections`. */
const KINDS = new Set((process.env.BENCH_ABUSE ?? 'bodies,texts,connections').split(','))

// This file runs twice: as the bench (the normal client), and as the abusive client in a process of its own
// (`abuse.ts <url>`), so the two share no connection pool and no event loop, as two users' browsers would not.
const ABUSER = process.argv[2]
const EXEC_ARGV = ['--conditions=@toolmark/source', '--import', 'tsx']

const child = ABUSER
  ? undefined
  : fork(fileURLToPath(new URL('abuse-server.ts', import.meta.url)), [], { execArgv: EXEC_ARGV })
const pending: Array<(value: Record<string, unknown>) => void> = []
child?.on('message', (message) => pending.shift()?.(message as Record<string, unknown>))
const ask = (op: string) =>
  new Promise<Record<string, unknown>>((resolve) => {
    pending.push(resolve)
    child?.send({ op })
  })
if (child) await new Promise<void>((resolve) => pending.push(() => resolve()))
const base = ABUSER ?? ((await ask('url')).url as string)

/** A client with its own demo session (cookie) and one conversation. */
async function session(): Promise<{ cookie: string; conversation: string }> {
  const response = await fetch(`${base}/api/conversations`, { method: 'POST' })
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] as string
  const { id } = (await response.json()) as { id: string }
  return { cookie, conversation: id }
}

/** Resolves the next time the chat event stream says the turn ended. */
function busyWatcher(body: ReadableStream<Uint8Array>) {
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader()
  let waiters: Array<() => void> = []
  void (async () => {
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      buffer += value
      let end = buffer.indexOf('\n\n')
      while (end >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (event.includes('"busy":false')) for (const wake of waiters.splice(0)) wake()
        end = buffer.indexOf('\n\n')
      }
    }
  })()
  return {
    idle: () => new Promise<void>((resolve) => waiters.push(resolve)),
    cancel: () => {
      waiters = []
      return reader.cancel().catch(() => {})
    },
  }
}

/** The normal client: TURNS turns and TURNS small chat completions, their latencies in ms. */
async function normal(): Promise<{ turns: number[]; completions: number[] }> {
  const { cookie, conversation } = await session()
  const events = await fetch(`${base}/api/conversations/${conversation}/events`, { headers: { cookie } })
  const watcher = busyWatcher(events.body as ReadableStream<Uint8Array>)
  const turns: number[] = []
  const completions: number[] = []
  for (let i = 0; i < TURNS; i++) {
    const started = performance.now()
    const ended = watcher.idle()
    const response = await fetch(`${base}/api/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ text: `search for chess, turn ${i}` }),
    })
    if (response.status !== 202) throw new Error(`a normal turn was refused: ${response.status}`)
    await ended
    turns.push(performance.now() - started)
    const t = performance.now()
    const completion = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'search for chess' }] }),
    })
    await completion.arrayBuffer()
    if (completion.status !== 200) throw new Error(`a normal completion was refused: ${completion.status}`)
    completions.push(performance.now() - t)
  }
  await watcher.cancel()
  return { turns, completions }
}

/** A streamed body of `total` bytes of `{"text":"xxx…` that stops when the server stops reading. */
const endless = (total: number) => {
  let sent = 0
  const head = new TextEncoder().encode('{"text":"')
  const chunk = new Uint8Array(65_536).fill(0x78)
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close()
      const bytes = sent === 0 ? head : chunk
      sent += bytes.byteLength
      controller.enqueue(bytes)
    },
  })
}

/** One abusive loop (its own session), until `stop.aborted`; counts what it sent and how it was answered. */
async function abuse(stop: AbortSignal, counts: Map<string, number>): Promise<void> {
  const { cookie, conversation } = await session()
  const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1)
  const post = async (path: string, body: BodyInit, headers: Record<string, string> = {}) => {
    try {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body,
        duplex: 'half',
      } as RequestInit)
      await response.arrayBuffer().catch(() => {})
      count(`${path.replace(/[0-9a-f-]{36}/, ':id')} ${response.status}`)
    } catch {
      count(`${path.replace(/[0-9a-f-]{36}/, ':id')} reset`)
    }
  }
  const open: Array<() => void> = []
  // A page connection of its own, for the bridge POSTs.
  const pageAbort = new AbortController()
  const page = await fetch(`${base}/toolmark/events?conversation=${conversation}`, {
    headers: { cookie },
    signal: pageAbort.signal,
  })
  const reader = (page.body as ReadableStream<Uint8Array>).getReader()
  const ready = new TextDecoder().decode((await reader.read()).value)
  const stream = /"stream":"([^"]+)"/.exec(ready)?.[1] ?? 'none'
  while (!stop.aborted) {
    if (KINDS.has('bodies')) {
      await post('/v1/chat/completions', endless(48 * 1_048_576))
      await post(`/api/conversations/${conversation}/messages`, endless(48 * 1_048_576))
      await post('/toolmark/messages', endless(5 * 1_048_576), { 'x-toolmark-stream': stream })
    }
    if (KINDS.has('texts')) {
      const longest = { messages: [{ role: 'user', content: 'chess '.repeat(666) }] }
      await post('/v1/chat/completions', JSON.stringify(longest))
      await post(
        '/v1/chat/completions',
        JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(4001) }] }),
      )
      await post(
        `/api/conversations/${conversation}/messages`,
        JSON.stringify({ text: 'chess '.repeat(666) }),
      )
    }
    if (!KINDS.has('connections')) continue
    // Connections until refused, then all closed.
    for (let i = 0; i < 40 && !stop.aborted; i++) {
      const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`, {
        headers: { cookie },
      })
      ws.on('error', () => {})
      const code = await new Promise<number | 'open'>((resolve) => {
        ws.once('close', (c) => resolve(c))
        ws.once('open', () => setTimeout(() => resolve('open'), 20))
      })
      count(`ws ${code}`)
      open.push(() => ws.terminate())
      const abort = new AbortController()
      const chat = await fetch(`${base}/api/conversations/${conversation}/events`, {
        headers: { cookie },
        signal: abort.signal,
      }).catch(() => undefined)
      count(`chat stream ${chat?.status ?? 'reset'}`)
      open.push(() => abort.abort())
      if (code !== 'open' && chat?.status !== 200) break
    }
    for (const close of open.splice(0)) close()
  }
  pageAbort.abort()
}

interface Phase {
  turns: number[]
  completions: number[]
  loopMaxMs: number
  loopP99Ms: number
  peakRss: number
}

if (ABUSER) {
  // The abusive client: its loops run until the bench says stop, then it reports what it sent.
  const stop = new AbortController()
  const counts = new Map<string, number>()
  process.once('message', () => stop.abort())
  process.send?.({ started: true })
  await Promise.all(Array.from({ length: ABUSERS }, () => abuse(stop.signal, counts)))
  process.send?.(Object.fromEntries(counts))
  process.exit(0)
}

async function phase(abused: boolean, counts: Map<string, number>): Promise<Phase> {
  await ask('reset')
  const abuser = abused ? fork(fileURLToPath(import.meta.url), [base], { execArgv: EXEC_ARGV }) : undefined
  if (abuser) {
    await new Promise((resolve) => abuser.once('message', resolve))
    await sleep(500) // the abuse under way
  }
  const measured = await normal()
  if (abuser) {
    const sent = new Promise<Record<string, number>>((resolve) => abuser.once('message', resolve))
    abuser.send('stop')
    for (const [what, n] of Object.entries(await sent)) counts.set(what, (counts.get(what) ?? 0) + n)
  }
  const stats = (await ask('stats')) as { loopMaxMs: number; loopP99Ms: number; peakRss: number }
  await sleep(200)
  return { ...measured, ...stats }
}

const counts = new Map<string, number>()
step('warm-up')
await phase(false, counts)
const alone: Phase[] = []
const abused: Phase[] = []
for (let round = 0; round < ROUNDS; round++) {
  step(`round ${round + 1}/${ROUNDS}`)
  alone.push(await phase(false, counts))
  abused.push(await phase(true, counts))
}
await ask('close')

const p = (values: number[], q: number) =>
  percentile(
    [...values].sort((a, b) => a - b),
    q / 100,
  )
const ratios = (pick: (phase: Phase) => number) =>
  median(alone.map((a, i) => pick(abused[i] as Phase) / pick(a)))
const all = (phases: Phase[], key: 'turns' | 'completions') => phases.flatMap((phase) => phase[key])
const x = (v: number) => `${v.toFixed(2)}×`

row(
  'normal turn p50 (alone → abused)',
  `${ms(p(all(alone, 'turns'), 50))} → ${ms(p(all(abused, 'turns'), 50))}`,
  '',
  x(ratios((f) => p(f.turns, 50))),
)
row(
  'normal turn p95',
  `${ms(p(all(alone, 'turns'), 95))} → ${ms(p(all(abused, 'turns'), 95))}`,
  '',
  x(ratios((f) => p(f.turns, 95))),
)
row(
  'small chat completion p50',
  `${ms(p(all(alone, 'completions'), 50))} → ${ms(p(all(abused, 'completions'), 50))}`,
  '',
  x(ratios((f) => p(f.completions, 50))),
)
row(
  'small chat completion p95',
  `${ms(p(all(alone, 'completions'), 95))} → ${ms(p(all(abused, 'completions'), 95))}`,
  '',
  x(ratios((f) => p(f.completions, 95))),
)
row(
  'server event-loop delay max',
  `${ms(median(alone.map((f) => f.loopMaxMs)))} → ${ms(median(abused.map((f) => f.loopMaxMs)))}`,
  '',
  x(ratios((f) => f.loopMaxMs)),
)
row(
  'server event-loop delay p99',
  `${ms(median(alone.map((f) => f.loopP99Ms)))} → ${ms(median(abused.map((f) => f.loopP99Ms)))}`,
  '',
  x(ratios((f) => f.loopP99Ms)),
)
row(
  'server peak RSS',
  `${mb(median(alone.map((f) => f.peakRss)))} → ${mb(median(abused.map((f) => f.peakRss)))}`,
  '',
  x(ratios((f) => f.peakRss)),
)
print()
console.log('\nWhat the abusive client sent, and the answers (status, close code, or reset):')
for (const [what, n] of [...counts].sort()) console.log(`  ${what}: ${n}`)
