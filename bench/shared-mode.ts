// Shared-mode benchmark: the agent server (apps/agent-server) as separate processes, one instance on SQLite
// (the baseline, measured in the same run) and three instances on one PostgreSQL and one Redis, each started
// here on free loopback ports. The same load on both: CONVERSATIONS conversations, each with a page on a real
// `ws` socket and a chat event stream, and a chat message every second each for SECONDS seconds; each message
// is one agent turn (the offline planner) that calls the page's search tool (a describe, then the call). In
// shared mode a conversation's page is on one instance and its chat messages go to the next one, so every call
// crosses instances. A third run, one instance on PostgreSQL without Redis, shows what the store alone costs.
// Printed: turn latency p50/p99 (message POST → the agent's answer on the chat stream) with its ratio to the
// baseline, lost or doubled calls, RSS per instance; and what a turn costs: PostgreSQL statements per turn
// (pg_stat_statements, with the most frequent statements), Redis commands per page call (INFO commandstats,
// by command; Redis counts the commands a script runs too, so one EVAL of the publish script shows as the EVAL
// plus its TIME, ZREMRANGEBYSCORE, ZRANGE and one XADD per watcher), and the legs of a turn (p50 of each: POST answered, POST → describe at the page, describe
// answered → call at the page, call answered → the agent's answer on the chat stream).
//
// CPU per turn: the user + system time (/proc/<pid>/stat) each instance used during the load, divided by the
// turns of the run (so three instances' figures add up to what the deployment spends on one turn); the same for
// Redis, and for PostgreSQL (the postmaster and its children alive at the end: backends are the pools'
// connections, which stay open for the whole run). The clock ticks are 10 ms, so a figure over a short run is
// rounded: read it as a rough share, not to the microsecond.
//
// Run: `pnpm --filter @toolmark/bench run bench:shared` (BENCH_CONVERSATIONS=1000 BENCH_SECONDS=60 by default).
// Nothing here asserts: the goal (p50 within 1.5× of one SQLite instance) is printed beside the figure.
// BENCH_ROUNDS=n (default 3): the three configurations run side by side and take turns, n rounds of
// SECONDS / n each (the first configuration changing every round), so a machine that gets busier or warms up
// during the run weighs on all of them alike; `turn p50 by round` prints each round's p50 and, as the ratio,
// the median of the rounds' shared ÷ SQLite ratios.
// BENCH_TOP=n prints the n most frequent statements and commands (default 8).
// BENCH_LIGHT=NxS (e.g. 10x10) adds, on each configuration after each part of its main run, a part of a run of
// N conversations for S seconds: a load far below saturation, so its latency is the cost of a turn without
// queueing behind others (printed as `light turn p50/p99`).
// BENCH_PROF=<dir> makes each instance write a V8 CPU profile (`.cpuprofile`) into <dir> when it stops.
// BENCH_CHAT_OFFSET=0 puts each conversation's chat on its page's instance (no call crosses instances; default 1).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import pg from 'pg'
import { WebSocket } from 'ws'
import { challengesTools, demoState } from '../packages/offline-agent/src/__tests__/demo-tools.ts'
import { startPostgres, startProcess, startRedis, type TestProcess } from '../tests/support/servers.ts'

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60)
const APP = fileURLToPath(new URL('../apps/agent-server/', import.meta.url))
const TOP = Number(process.env.BENCH_TOP ?? 8)
const TOOLS = challengesTools(demoState()).filter((t) => t.name === 'challenges.search')
/** BENCH_PROF=<dir>: each instance writes a V8 CPU profile there when it stops (`node --cpu-prof`). */
const PROF = process.env.BENCH_PROF
/** The optional below-saturation run: N conversations for S seconds (`BENCH_LIGHT=NxS`). */
const LIGHT = /^(\d+)x(\d+)$/.exec(process.env.BENCH_LIGHT ?? '')
const LIGHT_LOAD = LIGHT ? { conversations: Number(LIGHT[1]), seconds: Number(LIGHT[2]) } : undefined
/**
 * BENCH_CHAT_OFFSET=k (default 1): conversation i's chat goes to instance i + k, its page to instance i. With 0
 * both are on one instance, so the turn runs where the page is and no call crosses instances: what running every
 * turn on its page's instance would save at most.
 */
const CHAT_OFFSET = Math.max(0, Math.floor(Number(process.env.BENCH_CHAT_OFFSET ?? 1)))
/** BENCH_ROUNDS=n: each configuration's load runs in n parts of SECONDS / n, the configurations taking turns. */
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 3)))

interface Run {
  latencies: number[]
  turns: number
  answered: number
  calls: number
  doubled: number
  rss: number[]
  redisCommands?: number
  /** Redis commands per page call, by command. */
  redisByCommand?: Array<[string, number]>
  /** PostgreSQL statements per turn (all of the run's database). */
  pgStatements?: number
  /** PostgreSQL statements per turn, by statement. */
  pgByStatement?: Array<[string, number]>
  /** Per leg of a turn, its durations (ms). */
  legs: Record<Leg, number[]>
  /** CPU time per turn of each instance (ms). */
  cpu: number[]
  /** CPU time per turn of Redis and of PostgreSQL (ms), when the run used them. */
  redisCpu?: number
  pgCpu?: number
  /** The below-saturation run's latencies (sorted), with BENCH_LIGHT. */
  light?: number[]
  /** Each round's turn p50 (ms), in round order. */
  rounds: number[]
  /** Each round's below-saturation turn p50 (ms), with BENCH_LIGHT. */
  lightRounds?: number[]
}

/** The legs of a turn, in order. */
const LEGS = ['POST answered', 'POST → describe', 'describe → call', 'call → answer'] as const
type Leg = (typeof LEGS)[number]

/** When the steps of one turn happened (performance.now()). */
interface TurnMarks {
  describe?: number
  describeAnswered?: number
  call?: number
  callAnswered?: number
}

/** One user's conversation: its cookie, its page socket (on `pageAt`) and its chat stream (on `chatAt`). */
async function conversation(
  pageAt: string,
  chatAt: string,
  counts: { calls: number; doubled: number },
): Promise<{ say(legs: Record<Leg, number[]>): Promise<number>; close(): void }> {
  const created = await fetch(`${pageAt}/api/conversations`, { method: 'POST' })
  const cookie = (created.headers.get('set-cookie') ?? '').split(';')[0]!
  const { id } = (await created.json()) as { id: string }
  const clientId = crypto.randomUUID()
  const seen = new Set<string>()
  let marks: TurnMarks = {}
  const ws = new WebSocket(`${pageAt.replace('http', 'ws')}/toolmark/ws?conversation=${id}`, {
    headers: { cookie },
  })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { type: string; id: string; tool: string }
    if (m.type !== 'call' && m.type !== 'describe') return
    // Like the real page: an id is answered once; a second delivery would be a doubled call.
    if (seen.has(m.id)) {
      counts.doubled++
      return
    }
    seen.add(m.id)
    counts.calls++
    if (m.type === 'describe') marks.describe ??= performance.now()
    else marks.call ??= performance.now()
    const tool = TOOLS[0]!
    const { run, ...entry } = tool
    const result = m.type === 'describe' ? { status: 'ok', data: entry } : run({ query: 'chess' })
    ws.send(JSON.stringify({ protocol: 1, type: 'result', clientId, id: m.id, result }))
    if (m.type === 'describe') marks.describeAnswered ??= performance.now()
    else marks.callAnswered ??= performance.now()
  })
  const summaries = TOOLS.map(({ name, llmName, description, hints }) => ({
    name,
    llmName,
    description,
    hints,
  }))
  ws.send(JSON.stringify({ protocol: 1, type: 'manifest', clientId, rev: 1, tools: summaries }))
  // The chat stream, on the instance the chat messages go to.
  const abort = new AbortController()
  const waiting: Array<(at: number) => void> = []
  const stream = await fetch(`${chatAt}/api/conversations/${id}/events`, {
    headers: { cookie },
    signal: abort.signal,
  })
  void (async () => {
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += value
        for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, at)
          buffer = buffer.slice(at + 2)
          const data = frame.split('\n').find((l) => l.startsWith('data: '))
          if (data?.includes('"role":"assistant"')) waiting.shift()?.(performance.now())
        }
      }
    } catch {}
  })()
  // The page's manifest is stored before the first message (a round trip on the socket proves it).
  await new Promise((r) => setTimeout(r, 50))
  return {
    async say(legs) {
      const start = performance.now()
      marks = {}
      let answer: (at: number) => void = () => {}
      const answered = new Promise<number>((resolve) => {
        answer = resolve
        waiting.push(resolve)
      })
      // A POST the instance could not take (a connect timeout when it is saturated) counts as a turn
      // not answered, as the table shows; the load goes on.
      const posted = await fetch(`${chatAt}/api/conversations/${id}/messages`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Search for chess' }),
      }).catch(() => undefined)
      if (!posted) {
        waiting.splice(waiting.indexOf(answer), 1)
        return Number.NaN
      }
      const postedAt = performance.now()
      await posted.body?.cancel()
      if (posted.status !== 202) return Number.NaN
      const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(Number.NaN), 20_000))
      const end = await Promise.race([answered, timeout])
      const m = marks
      if (!Number.isNaN(end) && m.describe && m.describeAnswered && m.call && m.callAnswered) {
        legs['POST answered'].push(postedAt - start)
        legs['POST → describe'].push(m.describe - start)
        legs['describe → call'].push(m.call - m.describeAnswered)
        legs['call → answer'].push(end - m.callAnswered)
      }
      return end - start
    },
    close() {
      abort.abort()
      ws.close()
    },
  }
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
}

/** The fields of /proc/<pid>/stat after the command name (field 3 onwards). */
async function statOf(pid: number): Promise<string[]> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** The CPU time (user + system, ms) the processes used so far; a process that exited counts 0. */
async function cpuOf(pids: number[]): Promise<number> {
  let ticks = 0
  for (const pid of pids) {
    const fields = await statOf(pid).catch(() => undefined)
    if (fields) ticks += Number(fields[11]) + Number(fields[12]) // utime, stime
  }
  return ticks * TICK_MS
}

/**
 * The CPU time (ms) of each of PostgreSQL's processes (none without `port`). Backends come and go (a pool
 * closes idle connections), so a stretch of load is measured per process: see {@link grownCpu}.
 */
async function cpuByProcess(port: number | undefined): Promise<Map<number, number>> {
  const cpu = new Map<number, number>()
  if (port === undefined) return cpu
  for (const pid of await postgresPids(port)) cpu.set(pid, await cpuOf([pid]))
  return cpu
}

/** The CPU time the processes alive at the end used since `before` (a process started since: all of it). */
function grownCpu(before: Map<number, number>, after: Map<number, number>): number {
  let grew = 0
  for (const [pid, ms] of after) grew += ms - (before.get(pid) ?? 0)
  return grew
}

/** Processes whose command line contains every one of `parts`. */
async function processesWith(parts: string[]): Promise<number[]> {
  const found: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    const line = cmdline.split('\0').join(' ')
    if (parts.every((part) => line.includes(part))) found.push(Number(entry))
  }
  return found
}

/** The postmaster listening on `port` and its children (backends, background workers). */
async function postgresPids(port: number): Promise<number[]> {
  const [postmaster] = await processesWith(['postgres', `-p ${port}`])
  if (postmaster === undefined) return []
  const children: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const fields = await statOf(Number(entry)).catch(() => undefined)
    if (fields && Number(fields[1]) === postmaster) children.push(Number(entry))
  }
  return [postmaster, ...children]
}

/** Redis's count of calls per command (INFO commandstats). */
async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const stats = new Map<string, number>()
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    stats.set(m[1]!, Number(m[2]))
  return stats
}

/** pg_stat_statements of one database: calls per normalised statement. */
async function statementStats(admin: pg.Client, database: string): Promise<Map<string, number>> {
  const { rows } = await admin.query<{ query: string; calls: string }>(
    `SELECT s.query, s.calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
    [database],
  )
  const stats = new Map<string, number>()
  for (const r of rows) {
    const query = r.query.replace(/\s+/g, ' ')
    stats.set(query, (stats.get(query) ?? 0) + Number(r.calls))
  }
  return stats
}

/** Counts per unit (largest first). */
function perUnit(counts: Map<string, number>, units: number): Array<[string, number]> {
  return [...counts]
    .map(([k, v]): [string, number] => [k, v / Math.max(1, units)])
    .sort((a, b) => b[1] - a[1])
}

/** The conversations of one load on one configuration: opened once, measured in each round. */
interface Load {
  instances: TestProcess[]
  convs: Array<Awaited<ReturnType<typeof conversation>>>
  counts: { calls: number; doubled: number }
}

/**
 * Opens `conversations` conversations on `instances`: the page on instance i, the chat on instance
 * i + {@link CHAT_OFFSET}.
 */
async function open(instances: TestProcess[], conversations: number): Promise<Load> {
  const counts = { calls: 0, doubled: 0 }
  const convs = []
  for (let i = 0; i < conversations; i++) {
    const page = instances[i % instances.length]!.url
    const chat = instances[(i + CHAT_OFFSET) % instances.length]!.url
    convs.push(await conversation(page, chat, counts))
  }
  return { instances, convs, counts }
}

/** What one stretch of load measured: latencies, and the counters' growth during it. */
interface Part {
  latencies: number[]
  turns: number
  calls: number
  legs: Record<Leg, number[]>
  cpuMs: number[]
  redisCpuMs: number
  pgCpuMs: number
  redisCommands: number
  redisByCommand: Map<string, number>
  pgByStatement: Map<string, number>
}

/** What grew between two counts. */
const grown = (before: Map<string, number>, after: Map<string, number>) =>
  new Map(
    [...after].map(([k, v]): [string, number] => [k, v - (before.get(k) ?? 0)]).filter(([, v]) => v > 0),
  )

/** Runs the load of `load` for `seconds`: a message each second in each conversation. */
async function measure(
  load: Load,
  services: { redis?: Redis; redisPids: number[]; pgPort?: number },
  seconds: number,
  pgStats?: { admin: pg.Client; database: string },
): Promise<Part> {
  const { redis } = services
  const { instances, convs, counts } = load
  const before = redis ? Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1]) : 0
  const commandsBefore = redis ? await commandStats(redis) : new Map<string, number>()
  const statementsBefore = pgStats
    ? await statementStats(pgStats.admin, pgStats.database)
    : new Map<string, number>()
  const callsBefore = counts.calls
  const cpuBefore = await Promise.all(instances.map((i) => cpuOf([i.pid])))
  const redisCpuBefore = await cpuOf(services.redisPids)
  const pgCpuBefore = await cpuByProcess(services.pgPort)
  const legs = Object.fromEntries(LEGS.map((leg) => [leg, [] as number[]])) as Record<Leg, number[]>
  const latencies: number[] = []
  let turns = 0
  const until = performance.now() + seconds * 1000
  await Promise.all(
    convs.map(async (c, i) => {
      await new Promise((r) => setTimeout(r, (i * 1000) / convs.length)) // spread over the first second
      while (performance.now() < until) {
        const tick = performance.now()
        turns++
        latencies.push(await c.say(legs))
        const rest = 1000 - (performance.now() - tick)
        if (rest > 0) await new Promise((r) => setTimeout(r, rest))
      }
    }),
  )
  const after = redis ? Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1]) : 0
  const cpuAfter = await Promise.all(instances.map((i) => cpuOf([i.pid])))
  return {
    latencies,
    turns,
    calls: counts.calls - callsBefore,
    legs,
    cpuMs: cpuAfter.map((v, i) => v - cpuBefore[i]!),
    redisCpuMs: (await cpuOf(services.redisPids)) - redisCpuBefore,
    pgCpuMs: grownCpu(pgCpuBefore, await cpuByProcess(services.pgPort)),
    redisCommands: after - before,
    redisByCommand: redis ? grown(commandsBefore, await commandStats(redis)) : new Map(),
    pgByStatement: pgStats
      ? grown(statementsBefore, await statementStats(pgStats.admin, pgStats.database))
      : new Map(),
  }
}

/** The figures of one configuration: its parts (one per round) taken together. */
async function summarize(
  load: Load,
  parts: Part[],
  light: Part[],
  shared: boolean,
  pg: boolean,
): Promise<Run> {
  const sum = (f: (p: Part) => number) => parts.reduce((total, p) => total + f(p), 0)
  const add = (maps: Array<Map<string, number>>) => {
    const total = new Map<string, number>()
    for (const m of maps) for (const [k, v] of m) total.set(k, (total.get(k) ?? 0) + v)
    return total
  }
  const turns = sum((p) => p.turns)
  const calls = sum((p) => p.calls)
  const answered = (ls: number[]) => ls.filter((l) => !Number.isNaN(l)).sort((a, b) => a - b)
  const latencies = answered(parts.flatMap((p) => p.latencies))
  const legs = Object.fromEntries(
    LEGS.map((leg) => [leg, parts.flatMap((p) => p.legs[leg]).sort((a, b) => a - b)]),
  ) as Record<Leg, number[]>
  const run: Run = {
    latencies,
    turns,
    answered: latencies.length,
    calls,
    doubled: load.counts.doubled,
    rss: await Promise.all(load.instances.map((i) => rssOf(i.pid))),
    legs,
    cpu: load.instances.map((_, i) => sum((p) => p.cpuMs[i]!) / Math.max(1, turns)),
    rounds: parts.map((p) => pct(answered(p.latencies), 0.5)),
  }
  if (light.length > 0) {
    run.light = answered(light.flatMap((p) => p.latencies))
    run.lightRounds = light.map((p) => pct(answered(p.latencies), 0.5))
  }
  if (shared) {
    run.redisCpu = sum((p) => p.redisCpuMs) / Math.max(1, turns)
    run.redisCommands = sum((p) => p.redisCommands) / Math.max(1, calls)
    run.redisByCommand = perUnit(add(parts.map((p) => p.redisByCommand)), calls)
  }
  if (pg) {
    run.pgCpu = sum((p) => p.pgCpuMs) / Math.max(1, turns)
    run.pgByStatement = perUnit(add(parts.map((p) => p.pgByStatement)), turns)
    run.pgStatements = run.pgByStatement.reduce((total, [, v]) => total + v, 0)
  }
  return run
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
const ms = (v: number) => `${v.toFixed(1)} ms`
const mib = (v: number) => `${(v / 1_048_576).toFixed(0)} MiB`

async function start(env: Record<string, string>): Promise<TestProcess> {
  return startProcess({
    cwd: APP,
    args: [
      ...(PROF ? ['--cpu-prof', `--cpu-prof-dir=${PROF}`] : []),
      '--conditions=@toolmark/source',
      '--import',
      'tsx',
      'src/main.ts',
    ],
    env: {
      PROVIDER: 'embedded',
      // The demo's offline agent pauses between the chunks of its reply so a person sees it stream; here that
      // pause would add the same 160 ms to every turn of every configuration and hide what the server costs.
      EMBEDDED_CHUNK_DELAY_MS: '0',
      STATIC_DIR: '/nonexistent',
      CALL_DEADLINE_MS: '10000',
      MAX_SESSIONS: '1000000',
      ...env,
    },
    ready: /Toolmark agent server on/,
    timeoutMs: 60_000,
  })
}

const work = await mkdtemp(join(tmpdir(), 'toolmark-bench-shared-'))
console.log(
  `shared-mode bench: ${CONVERSATIONS} conversations, a message each per second, ${SECONDS} s ` +
    `(${ROUNDS} rounds of ${SECONDS / ROUNDS} s, the configurations taking turns)`,
)
const [redisServer, postgres] = await Promise.all([startRedis(), startPostgres()])
const redis = new Redis(redisServer.url)
const redisPids = await processesWith(['redis-server', `:${redisServer.port}`])
const runs: Run[] = []
/** Each configuration's instances. */
const started: TestProcess[][] = []
let admin: pg.Client | undefined
try {
  // pg_stat_statements counts the statements each run sends (it loads only at server start).
  const setup = new pg.Client({ connectionString: postgres.url })
  await setup.connect()
  await setup.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
  await setup.end()
  await postgres.stop()
  await postgres.start()
  admin = new pg.Client({ connectionString: postgres.url })
  await admin.connect()
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  await admin.query('CREATE DATABASE one')
  await admin.query('CREATE DATABASE three')
  // The baseline, the store alone (one instance on PostgreSQL) and shared mode: what each part costs. All
  // three run side by side (an idle configuration costs next to nothing) and take turns under the load.
  const configurations: Array<Array<Record<string, string>>> = [
    [{ DATA_FILE: join(work, 'baseline.db') }],
    [{ DATABASE_URL: postgres.urlOf('one') }],
    Array.from({ length: 3 }, () => ({ DATABASE_URL: postgres.urlOf('three'), REDIS_URL: redisServer.url })),
  ]
  for (const envs of configurations) {
    const instances: TestProcess[] = []
    started.push(instances)
    for (const env of envs) instances.push(await start(env))
  }
  const loads = await Promise.all(started.map((instances) => open(instances, CONVERSATIONS)))
  const lightLoads = LIGHT_LOAD
    ? await Promise.all(started.map((instances) => open(instances, LIGHT_LOAD.conversations)))
    : []
  const services = configurations.map((envs) => {
    const shared = 'REDIS_URL' in envs[0]!
    return {
      ...(shared ? { redis } : {}),
      redisPids: shared ? redisPids : [],
      ...('DATABASE_URL' in envs[0]! ? { pgPort: postgres.port } : {}),
    }
  })
  const parts: Part[][] = configurations.map(() => [])
  const light: Part[][] = configurations.map(() => [])
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with another configuration, so a machine that slows down or warms up weighs on all.
    for (let k = 0; k < configurations.length; k++) {
      const c = (round + k) % configurations.length
      const database = /\/(\w+)$/.exec(configurations[c]![0]!.DATABASE_URL ?? '')?.[1]
      const stats = database ? { admin, database } : undefined
      parts[c]!.push(await measure(loads[c]!, services[c]!, SECONDS / ROUNDS, stats))
      if (LIGHT_LOAD) light[c]!.push(await measure(lightLoads[c]!, services[c]!, LIGHT_LOAD.seconds / ROUNDS))
    }
  }
  for (let c = 0; c < configurations.length; c++) {
    const envs = configurations[c]!
    runs.push(
      await summarize(loads[c]!, parts[c]!, light[c]!, 'REDIS_URL' in envs[0]!, 'DATABASE_URL' in envs[0]!),
    )
  }
  for (const load of [...loads, ...lightLoads]) for (const c of load.convs) c.close()
} finally {
  await Promise.all(started.flat().map((p) => p.stop()))
  await admin?.end().catch(() => {})
  redis.disconnect()
  await redisServer.stop()
  await postgres.destroy()
  await rm(work, { recursive: true, force: true })
}

const [baseline, store, shared] = runs as [Run, Run, Run]
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
const p50 = (r: Run) => pct(r.latencies, 0.5)
const p99 = (r: Run) => pct(r.latencies, 0.99)
const median = (values: number[]) =>
  pct(
    [...values].sort((a, b) => a - b),
    0.5,
  )
/**
 * A row of each round's p50 per configuration; its ratio is the median of the rounds' shared ÷ SQLite
 * ratios (each measured a few seconds apart, so a machine that is busier in one round weighs on both).
 */
const byRound = (what: string, of: (r: Run) => number[]): string[] => [
  what,
  ...[baseline, store, shared].map(
    (r) =>
      of(r)
        .map((v) => v.toFixed(1))
        .join(' / ') + ' ms',
  ),
  ratio(median(of(shared).map((v, i) => v / of(baseline)[i]!)), 1),
  what.startsWith('turn') ? '≤ 1.5×' : '',
]
const rows: string[][] = [
  ['', 'one instance, SQLite', 'one, PostgreSQL', 'three, PostgreSQL + Redis', 'three ÷ SQLite', 'goal'],
  [
    'turn p50',
    ms(p50(baseline)),
    ms(p50(store)),
    ms(p50(shared)),
    ratio(p50(shared), p50(baseline)),
    '≤ 1.5×',
  ],
  ['turn p99', ms(p99(baseline)), ms(p99(store)), ms(p99(shared)), ratio(p99(shared), p99(baseline)), ''],
  byRound('turn p50 by round (ratio: median of rounds)', (r) => r.rounds),
  ...[
    ['turns answered / sent', (r: Run) => `${r.answered} / ${r.turns}`, 'all'],
    ['page calls (describe + call)', (r: Run) => String(r.calls), ''],
    ['doubled calls', (r: Run) => String(r.doubled), '0'],
    ['RSS per instance', (r: Run) => r.rss.map(mib).join(', '), ''],
  ].map(([what, cell, goal]) => [
    what as string,
    ...[baseline, store, shared].map(cell as (r: Run) => string),
    '',
    goal as string,
  ]),
  ...(LIGHT_LOAD
    ? [
        [`light turn p50 (${LIGHT_LOAD.conversations}×${LIGHT_LOAD.seconds} s)`, 0.5],
        [`light turn p99`, 0.99],
      ].map(([what, p]) => {
        const at = (r: Run) => pct(r.light ?? [], p as number)
        return [
          what as string,
          ...[baseline, store, shared].map((r) => ms(at(r))),
          ratio(at(shared), at(baseline)),
          '',
        ]
      })
    : []),
  ...(LIGHT_LOAD ? [byRound('light turn p50 by round', (r) => r.lightRounds ?? [])] : []),
  [
    'CPU per turn, each instance',
    ...[baseline, store, shared].map((r) => r.cpu.map((v) => v.toFixed(2)).join(' + ') + ' ms'),
    ratio(
      shared.cpu.reduce((a, b) => a + b, 0),
      baseline.cpu.reduce((a, b) => a + b, 0),
    ),
    '',
  ],
  [
    'CPU per turn, Redis / PostgreSQL',
    '',
    `- / ${(store.pgCpu ?? 0).toFixed(2)} ms`,
    `${(shared.redisCpu ?? 0).toFixed(2)} / ${(shared.pgCpu ?? 0).toFixed(2)} ms`,
    '',
    '',
  ],
  ['Redis commands per page call', '', '', (shared.redisCommands ?? 0).toFixed(1), '', ''],
  [
    'PostgreSQL statements per turn',
    '',
    (store.pgStatements ?? 0).toFixed(1),
    (shared.pgStatements ?? 0).toFixed(1),
    '',
    '',
  ],
  ...LEGS.map((leg) => [
    `leg p50: ${leg}`,
    ...[baseline, store, shared].map((r) => ms(pct(r.legs[leg], 0.5))),
    ratio(pct(shared.legs[leg], 0.5), pct(baseline.legs[leg], 0.5)),
    '',
  ]),
]
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
for (const r of rows) console.log(r.map((cell, i) => cell.padEnd(widths[i]!)).join('  '))
const top = (title: string, entries: Array<[string, number]> | undefined) => {
  console.log(`\n${title}`)
  for (const [what, n] of (entries ?? []).slice(0, TOP))
    console.log(`  ${n.toFixed(2).padStart(6)}  ${what.length > 150 ? `${what.slice(0, 147)}...` : what}`)
}
top('three instances, PostgreSQL statements per turn:', shared.pgByStatement)
top('three instances, Redis commands per page call:', shared.redisByCommand)
process.exit(0)
