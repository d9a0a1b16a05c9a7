// Relay benchmark: the reference agent server (apps/agent-server) relaying `page_call`s to the demo page in
// real Chromium over its WebSocket, and the server's memory per open conversation. Every figure is printed
// next to a floor measured in the same run, as a ratio. Nothing here asserts: goals are printed beside the
// figures. Run with `pnpm bench:relay` (or `pnpm bench` for both benches).
//
// 1. Latency and throughput. The agent server runs in this process (127.0.0.1, port 0, SQLite in a temp
//    file) serving the built demo; Chromium opens it. Calls go (a) straight through `Relay.request`, the
//    relay path the agent loop uses for every `page_call`, and (b) through the whole agent loop with a
//    scripted provider (no LLM): from the model's `page_call` to the tool result handed back to the model,
//    split into the time inside `Relay.request` and the loop's own work; once with the demo's chat live
//    (the page renders the turn's messages while it answers) and once on a page load whose chat stream
//    (`/events`) is blocked.
//    Floor: a raw `ws` round trip between this process and the same Chromium page, whose tiny script echoes
//    each frame (the call's JSON text). Overhead = ours − floor: the server's binding/validation/SQLite work
//    plus the page's bridge, registry and tool run.
// 2. Memory per open conversation. The server runs in a child process (`--expose-gc`), so this process's
//    1000 `ws` clients do not pollute the figures; the child reports `process.memoryUsage()` after GC.
//    Each conversation: a new session (cookie from `POST /api/conversations`), a WebSocket bound to the
//    conversation, and one manifest (the demo's real tool list). Floor: a child holding the same number
//    of bare `ws` sockets that received the same manifest frame.
import { type ChildProcess, fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, request as httpRequest } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ToolManifestSummary } from '@toolmark/core'
import type {
  Conversation,
  Provider,
  ProviderEvent,
  ProviderRequest,
  RunningServer,
} from '@toolmark-apps/agent-server'
import type { Browser } from 'playwright-core'
import { WebSocket, WebSocketServer } from 'ws'

const HOST = '127.0.0.1'
const TOOL = 'challenges.search'
const QUERY = 'chess'
const WARM_CALLS = 300
const SEQ_CALLS = 2000
const PIPE_CALLS = 4000
const IN_FLIGHT = 16
/** Floor and ours alternate in this many rounds (calls split evenly); rates are the rounds' median. */
const ROUNDS = 4
const AGENT_WARM_TURNS = 100
const AGENT_TURNS = 300
const CONVERSATIONS = 1000
const WARM_CONVERSATIONS = 20
const OPEN_CONCURRENCY = 50
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
]
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DEMO_DIR = join(ROOT, 'apps/demo')

// ── Child processes (memory part): `relay.ts --server-child` / `relay.ts --floor-child` ─────────────────

/** What a child reports after GC. */
interface MemoryReport {
  rss: number
  heapUsed: number
  accepted: number
  rejected: number
}

type ChildMessage =
  | { op: 'ready'; url: string }
  | { op: 'count'; accepted: number }
  | { op: 'measure'; memory: MemoryReport }

/** Answers the parent's `count`, `measure` and `close` requests over IPC. */
function serveParent(url: string, counts: () => [number, number], close: () => Promise<void>): void {
  const gc = (globalThis as { gc?: () => void }).gc
  const send = (message: ChildMessage) => process.send?.(message)
  process.on('message', (message: { op: string }) => {
    if (message.op === 'count') send({ op: 'count', accepted: counts()[0] })
    else if (message.op === 'measure') {
      void (async () => {
        for (let i = 0; i < 3; i++) {
          gc?.()
          await sleep(50)
        }
        const { rss, heapUsed } = process.memoryUsage()
        const [accepted, rejected] = counts()
        send({ op: 'measure', memory: { rss, heapUsed, accepted, rejected } })
      })()
    } else if (message.op === 'close') {
      void close().then(() => process.disconnect())
    }
  })
  send({ op: 'ready', url })
}

/** The agent server alone in this process; counts accepted first manifests (`rebound`) and rejections. */
async function serverChild(): Promise<void> {
  const { loadConfig, startServer } = await import('@toolmark-apps/agent-server')
  const dir = await mkdtemp(join(tmpdir(), 'toolmark-bench-mem-'))
  const config = loadConfig({
    PORT: '0',
    HOST,
    DATA_FILE: join(dir, 'bench.db'),
    STATIC_DIR: join(dir, 'no-demo'),
    PROVIDER: 'embedded',
    CALL_DEADLINE_MS: '10000',
  })
  const server = await startServer({ config, log: () => {} })
  let accepted = 0
  let rejected = 0
  server.relay.on('rebound', () => accepted++)
  server.relay.on('rejected', () => rejected++)
  serveParent(
    server.url,
    () => [accepted, rejected],
    async () => {
      await server.close()
      await rm(dir, { recursive: true, force: true })
    },
  )
}

/** Floor: an HTTP server with bare `ws` sockets that count (and drop) the frames they receive. */
async function floorChild(): Promise<void> {
  const http = createServer((_req, res) => res.writeHead(404).end())
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1_048_576 })
  let accepted = 0
  http.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => {})
      ws.on('message', () => accepted++)
    }),
  )
  await new Promise<void>((resolve) => http.listen(0, HOST, resolve))
  serveParent(
    `http://${HOST}:${(http.address() as AddressInfo).port}`,
    () => [accepted, 0],
    async () => {
      for (const ws of wss.clients) ws.terminate()
      wss.close()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  )
}

// ── Table ──────────────────────────────────────────────────────────────────────────────────────────────

const rows: string[][] = []
/** A progress line on stderr (the table goes to stdout). */
const step = (text: string) => process.stderr.write(`… ${text}\n`)
const ms = (v: number) => (v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(3)} ms`)
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const rate = (v: number) => `${Math.round(v)} calls/s`

/** Adds a table row: what, figure, floor, ratio (ours / floor), goal. */
function row(what: string, figure: string, floor = '', ratio = '', goal = ''): void {
  rows.push([what, figure, floor, ratio, goal])
}
const times = (ours: number, floor: number) => `${(ours / floor).toFixed(2)}×`

/** The `p` quantile (0–1) of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
}

/** The median of unsorted values. */
function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  )
}

/** Runs floor and ours in turn, `ROUNDS` times each, so drift in the machine's load hits both alike. */
async function alternate<T>(floor: () => Promise<T>, ours: () => Promise<T>): Promise<[T[], T[]]> {
  const floors: T[] = []
  const ourRuns: T[] = []
  for (let r = 0; r < ROUNDS; r++) {
    floors.push(await floor())
    ourRuns.push(await ours())
  }
  return [floors, ourRuns]
}

/** Runs `once` `n` times in a row; per-call latencies (sorted) and calls per second. */
async function sequential(
  n: number,
  once: () => Promise<void>,
): Promise<{ sorted: number[]; perSec: number }> {
  const latencies: number[] = []
  const t0 = performance.now()
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await once()
    latencies.push(performance.now() - start)
  }
  const elapsed = performance.now() - t0
  return { sorted: latencies.sort((a, b) => a - b), perSec: n / (elapsed / 1000) }
}

/** Runs `once` `n` times with `inFlight` workers; calls per second. */
async function pipelined(n: number, inFlight: number, once: () => Promise<void>): Promise<number> {
  let issued = 0
  const worker = async () => {
    while (issued < n) {
      issued++
      await once()
    }
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: inFlight }, worker))
  return n / ((performance.now() - t0) / 1000)
}

// ── Part 1: latency and throughput with the demo page in Chromium ──────────────────────────────────────

/** Newest modification time of the files under `dir` (tests and node_modules skipped). */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '__tests__' || entry.name === 'dist') continue
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

/**
 * The built demo: `apps/demo/dist` when it is newer than the demo's and the packages' sources, else a
 * fresh production build (Vite's `build()`, resolved from apps/demo) into a temp folder.
 */
async function demoDist(work: string): Promise<{ dir: string; note: string }> {
  const dist = join(DEMO_DIR, 'dist')
  const index = join(dist, 'index.html')
  const packages = join(ROOT, 'packages')
  const sources = Math.max(
    newest(join(DEMO_DIR, 'src')),
    statSync(join(DEMO_DIR, 'index.html')).mtimeMs,
    ...readdirSync(packages).map((name) => newest(join(packages, name, 'src'))),
  )
  if (existsSync(index) && statSync(index).mtimeMs > sources)
    return { dir: dist, note: 'reused apps/demo/dist' }
  const vitePath = createRequire(join(DEMO_DIR, 'package.json')).resolve('vite')
  const { build } = (await import(pathToFileURL(vitePath).href)) as {
    build: (config: Record<string, unknown>) => Promise<unknown>
  }
  const outDir = join(work, 'dist')
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  const t0 = performance.now()
  try {
    await build({
      root: DEMO_DIR,
      configFile: join(DEMO_DIR, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    })
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
  return { dir: outDir, note: `built the demo in ${Math.round(performance.now() - t0)} ms` }
}

/** A provider that always calls `page_call(TOOL)` and records how long the tool result took to come back. */
class ScriptedProvider implements Provider {
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

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** One demo page load in its own browser context (a new session, user and conversation), bound on the server. */
async function openDemo(browser: Browser, server: RunningServer, blockChat: boolean) {
  const context = await browser.newContext()
  // The chat's server-sent events: blocked, the page has no chat updates to render during a turn.
  if (blockChat) await context.route('**/api/conversations/*/events', (route) => route.abort())
  const page = await context.newPage()
  await page.goto(server.url)
  const conversationId = String(
    await (await page.waitForFunction(() => localStorage.getItem('toolmark-demo:conversation'))).jsonValue(),
  )
  const conversation = server.store.getConversation(conversationId)
  if (!conversation) throw new Error('The server does not know the page’s conversation')
  const bound = await waitFor('the demo manifest', () => {
    const bound = server.relay.page(conversationId)
    return bound?.tools.some((t) => t.name === TOOL) ? bound : undefined
  })
  return { context, page, conversation, bound }
}

/**
 * Runs agent turns whose scripted model calls `page_call(TOOL)`. Returns (sorted) the model's
 * page_call → tool result times, the part spent inside `Relay.request` (page included), and the rest:
 * the loop's own server-side work (history, SQLite, masking, events, rendering the manifest).
 */
async function agentTurns(server: RunningServer, provider: ScriptedProvider, conversation: Conversation) {
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

/** Runs `fn` and returns its value with this process's CPU time (user + system, ms) meanwhile. */
async function withCpu<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const before = process.cpuUsage()
  const value = await fn()
  const used = process.cpuUsage(before)
  return [value, (used.user + used.system) / 1000]
}

/** Part 1. Returns the demo's manifest tools (part 2 sends them). */
async function latency(work: string): Promise<ToolManifestSummary[]> {
  const { loadConfig, startServer } = await import('@toolmark-apps/agent-server')
  const { chromium } = await import('playwright-core')
  step('demo assets')
  const dist = await demoDist(work)
  const provider = new ScriptedProvider()
  const config = loadConfig({
    PORT: '0',
    HOST,
    DATA_FILE: join(work, 'latency.db'),
    STATIC_DIR: dist.dir,
    PROVIDER: 'embedded',
    CALL_DEADLINE_MS: '10000',
  })
  const server = await startServer({ config, provider, log: () => {} })
  let rejected = 0
  server.relay.on('rejected', () => rejected++)
  step(`server at ${server.url}; launching Chromium`)
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  })
  const echo = new WebSocketServer({ host: HOST, port: 0 })
  const echoListening = new Promise((resolve) => echo.once('listening', resolve))
  try {
    const demo = await openDemo(browser, server, false)
    const { conversation, bound } = demo
    const scope = { userId: conversation.userId, conversationId: conversation.id, toolCallId: 'bench' }
    let failures = 0
    let resultBytes = 0
    const relayCall = async () => {
      const rev = server.relay.page(conversation.id)?.rev
      const outcome = await server.relay.request(scope, {
        kind: 'call',
        tool: TOOL,
        input: { query: QUERY },
        ...(rev === undefined ? {} : { rev }),
      })
      if (outcome.result.status !== 'ok') failures++
      resultBytes = JSON.stringify({
        protocol: 1,
        type: 'result',
        clientId: bound.clientId,
        id: outcome.callId,
        result: outcome.result,
      }).length
    }
    // Floor: the same page echoes frames on a second, raw WebSocket to this process.
    await echoListening
    const connected = new Promise<WebSocket>((resolve) => echo.once('connection', resolve))
    await demo.page.evaluate(
      (url) =>
        new Promise<void>((resolve, reject) => {
          const socket = new globalThis.WebSocket(url)
          socket.onmessage = (event) => socket.send(event.data)
          socket.onopen = () => resolve()
          socket.onerror = () => reject(new Error('echo socket failed'))
          ;(globalThis as { benchEcho?: unknown }).benchEcho = socket
        }),
      `ws://${HOST}:${(echo.address() as AddressInfo).port}`,
    )
    const echoSocket = await connected
    const frame = JSON.stringify({
      protocol: 1,
      type: 'call',
      clientId: bound.clientId,
      id: randomUUID(),
      rev: bound.rev,
      tool: TOOL,
      input: { query: QUERY },
    })
    const replies: Array<() => void> = []
    echoSocket.on('message', () => replies.shift()?.())
    const echoCall = () =>
      new Promise<void>((resolve) => {
        replies.push(resolve)
        echoSocket.send(frame)
      })

    step('warm-up')
    for (let i = 0; i < WARM_CALLS; i++) {
      await echoCall()
      await relayCall()
    }
    failures = 0
    step('Relay.request: sequential, then 16 in flight')
    const [floorSeqs, relaySeqs] = await alternate(
      () => sequential(SEQ_CALLS / ROUNDS, echoCall),
      () => sequential(SEQ_CALLS / ROUNDS, relayCall),
    )
    const [floorPipes, relayPipes] = await alternate(
      () => withCpu(() => pipelined(PIPE_CALLS / ROUNDS, IN_FLIGHT, echoCall)),
      () => withCpu(() => pipelined(PIPE_CALLS / ROUNDS, IN_FLIGHT, relayCall)),
    )
    const merge = (runs: Array<{ sorted: number[]; perSec: number }>) => ({
      sorted: runs.flatMap((r) => r.sorted).sort((a, b) => a - b),
      perSec: median(runs.map((r) => r.perSec)),
    })
    const floorSeq = merge(floorSeqs)
    const relaySeq = merge(relaySeqs)
    const floorPipe = median(floorPipes.map(([perSec]) => perSec))
    const relayPipe = median(relayPipes.map(([perSec]) => perSec))
    const floorCpu = floorPipes.reduce((sum, [, cpu]) => sum + cpu, 0)
    const relayCpu = relayPipes.reduce((sum, [, cpu]) => sum + cpu, 0)
    const relayFailures = failures
    echoSocket.close()

    step('agent loop, demo chat live')
    const live = await agentTurns(server, provider, conversation)
    await demo.context.close()
    step('agent loop, chat stream blocked')
    const quiet = await openDemo(browser, server, true)
    const blocked = await agentTurns(server, provider, quiet.conversation)
    await quiet.context.close()

    const fp50 = percentile(floorSeq.sorted, 0.5)
    const fp99 = percentile(floorSeq.sorted, 0.99)
    const p50 = (sorted: number[]) => percentile(sorted, 0.5)
    const p99 = (sorted: number[]) => percentile(sorted, 0.99)
    const rp50 = p50(relaySeq.sorted)
    const rp99 = p99(relaySeq.sorted)
    console.log(`Chromium ${browser.version()}; ${dist.note}; ${TOOL}({ query: '${QUERY}' })`)
    console.log(
      `floor = raw ws echo between this process and the same page (frames: call ${frame.length} B; ` +
        `our result ${resultBytes} B); CPU = this process (server + Playwright client)`,
    )
    console.log(
      'agent turns: a scripted model (no LLM) calls page_call; timed from its tool call to the tool result it ' +
        'gets back. "chat live": the demo also renders the turn’s chat messages (server-sent events) while ' +
        'it answers; "chat stream blocked": a second page load whose /events requests are aborted',
    )
    row(`Relay.request → page → result, p50 (${SEQ_CALLS} sequential)`, ms(rp50), ms(fp50), times(rp50, fp50))
    row('Relay.request → page → result, p99', ms(rp99), ms(fp99), times(rp99, fp99))
    row('relay overhead p50 (ours − floor)', ms(rp50 - fp50), '', '', '≤ 2 ms on loopback')
    row(
      'Relay.request, sequential',
      rate(relaySeq.perSec),
      rate(floorSeq.perSec),
      times(relaySeq.perSec, floorSeq.perSec),
    )
    row(
      `Relay.request, ${IN_FLIGHT} in flight (${PIPE_CALLS} calls)`,
      rate(relayPipe),
      rate(floorPipe),
      times(relayPipe, floorPipe),
    )
    row(
      `  CPU per call, ${IN_FLIGHT} in flight`,
      ms(relayCpu / PIPE_CALLS),
      ms(floorCpu / PIPE_CALLS),
      times(relayCpu, floorCpu),
    )
    const agentRows = (label: string, run: typeof live) => {
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
    agentRows(`${AGENT_TURNS} turns, demo chat live`, live)
    agentRows(`${AGENT_TURNS} turns, chat stream blocked`, blocked)
    const agentFailures = live.failures + blocked.failures
    if (relayFailures + agentFailures + rejected > 0)
      console.log(
        `note: ${relayFailures} relay calls and ${agentFailures} agent calls did not return ok; ` +
          `${rejected} page messages rejected`,
      )
    return server.store.getManifest(bound.clientId)?.tools ?? bound.tools
  } finally {
    for (const socket of echo.clients) socket.terminate()
    echo.close()
    await browser.close()
    await server.close()
  }
}

// ── Part 2: memory per open conversation ───────────────────────────────────────────────────────────────

/** A child process running this file in `mode`, with an RPC helper. */
async function startChild(mode: '--server-child' | '--floor-child') {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [mode], {
    cwd: BENCH_DIR,
    execArgv: [...process.execArgv, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const next = () =>
    new Promise<ChildMessage>((resolve, reject) => {
      const onExit = () => reject(new Error(`${mode} exited early`))
      child.once('exit', onExit)
      child.once('message', (message) => {
        child.off('exit', onExit)
        resolve(message as ChildMessage)
      })
    })
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      if (child.connected) child.send({ op: 'close' })
      const timer = setTimeout(() => child.kill(), 10_000)
      await exited
      clearTimeout(timer)
    }
    if (child.exitCode !== 0) console.log(`note: ${mode} ended with ${child.exitCode ?? child.signalCode}`)
  }
  const ready = await next().catch(async (error: unknown) => {
    await close()
    throw error
  })
  if (ready.op !== 'ready') throw new Error(`${mode} did not start`)
  const rpc = async <K extends ChildMessage['op']>(op: K): Promise<Extract<ChildMessage, { op: K }>> => {
    const answer = next()
    child.send({ op })
    return (await answer) as Extract<ChildMessage, { op: K }>
  }
  return {
    url: ready.url,
    rpc,
    close,
  }
}

/** `POST /api/conversations` without a cookie: a new session (and demo user) and a conversation. */
function newConversation(url: string): Promise<{ id: string; cookie: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/conversations`, { method: 'POST', agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const cookie = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ')
        if (res.statusCode !== 201 || !cookie)
          return reject(new Error(`POST /api/conversations: ${res.statusCode}`))
        resolve({ id: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id, cookie })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * Opens `count` conversations (`OPEN_CONCURRENCY` at a time), each sending one manifest; each open socket
 * is pushed to `sockets` as soon as it is open, so the caller can close them even if a later one fails.
 */
async function openConversations(
  target: 'server' | 'floor',
  url: string,
  count: number,
  tools: ToolManifestSummary[],
  closedEarly: { count: number },
  sockets: WebSocket[],
): Promise<void> {
  const wsBase = url.replace(/^http/, 'ws')
  let next = 0
  const open = async () => {
    const path = target === 'server' ? await newConversation(url) : undefined
    const socket = new WebSocket(
      path ? `${wsBase}/toolmark/ws?conversation=${encodeURIComponent(path.id)}` : `${wsBase}/ws`,
      path ? { headers: { cookie: path.cookie } } : {},
    )
    socket.on('error', () => {})
    socket.once('close', () => {
      if (!closing.has(socket)) closedEarly.count++
    })
    sockets.push(socket)
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('close', (code: number) =>
        reject(new Error(`${target}: socket closed (${code}) before open`)),
      )
    })
    socket.send(JSON.stringify({ protocol: 1, type: 'manifest', clientId: randomUUID(), rev: 1, tools }))
  }
  const worker = async () => {
    while (next < count) {
      next++
      await open()
    }
  }
  await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, worker))
}

/** Sockets this bench closes on purpose (any other close is counted as early). */
const closing = new WeakSet<WebSocket>()

/** Closes `sockets` and resolves once every one has closed. */
async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          closing.add(socket)
          if (socket.readyState === WebSocket.CLOSED) return resolve()
          if (socket.readyState === WebSocket.CONNECTING) {
            socket.once('close', () => resolve())
            return socket.terminate()
          }
          socket.once('close', () => resolve())
          socket.close()
        }),
    ),
  )
}

/** Baseline after a warm-up, then `CONVERSATIONS` open conversations; memory before and after (GC'd). */
async function measureMemory(target: 'server' | 'floor', tools: ToolManifestSummary[]) {
  const child = await startChild(target === 'server' ? '--server-child' : '--floor-child')
  const closedEarly = { count: 0 }
  const warm: WebSocket[] = []
  const sockets: WebSocket[] = []
  try {
    const waitAccepted = async (n: number) => {
      const deadline = performance.now() + 30_000
      while ((await child.rpc('count')).accepted < n) {
        if (performance.now() > deadline) throw new Error(`${target}: fewer than ${n} manifests accepted`)
        await sleep(50)
      }
    }
    await openConversations(target, child.url, WARM_CONVERSATIONS, tools, closedEarly, warm)
    await waitAccepted(WARM_CONVERSATIONS)
    await closeAll(warm)
    await sleep(200)
    const before = (await child.rpc('measure')).memory
    const t0 = performance.now()
    await openConversations(target, child.url, CONVERSATIONS, tools, closedEarly, sockets)
    await waitAccepted(WARM_CONVERSATIONS + CONVERSATIONS)
    const openMs = performance.now() - t0
    const after = (await child.rpc('measure')).memory
    return { before, after, openMs, closedEarly: closedEarly.count }
  } finally {
    await closeAll([...warm, ...sockets])
    await child.close()
  }
}

/** Part 2: memory of the server with `CONVERSATIONS` open conversations, and of the bare `ws` floor. */
async function memory(tools: ToolManifestSummary[]): Promise<void> {
  step(`memory: ${CONVERSATIONS} conversations`)
  const ours = await measureMemory('server', tools)
  step('memory: floor')
  const floor = await measureMemory('floor', tools)
  const manifestBytes = JSON.stringify({
    protocol: 1,
    type: 'manifest',
    clientId: randomUUID(),
    rev: 1,
    tools,
  }).length
  console.log(
    `memory: server in a child process (--expose-gc, measured after GC); ${CONVERSATIONS} conversations, each a ` +
      `new session + WebSocket + one ${manifestBytes} B manifest (${tools.length} tools); opened in ` +
      `${Math.round(ours.openMs)} ms; floor = bare ws server child holding the same sockets and frames`,
  )
  if (ours.closedEarly + floor.closedEarly + ours.after.rejected > 0)
    console.log(
      `note: ${ours.closedEarly + floor.closedEarly} sockets closed early, ${ours.after.rejected} messages rejected`,
    )
  const dRss = ours.after.rss - ours.before.rss
  const fRss = floor.after.rss - floor.before.rss
  const dHeap = ours.after.heapUsed - ours.before.heapUsed
  const fHeap = floor.after.heapUsed - floor.before.heapUsed
  row(
    `server RSS with ${CONVERSATIONS} conversations open`,
    mb(ours.after.rss),
    mb(floor.after.rss),
    times(ours.after.rss, floor.after.rss),
    `< 200 MB`,
  )
  row(`RSS Δ for ${CONVERSATIONS} conversations`, mb(dRss), mb(fRss), times(dRss, fRss))
  row(
    'RSS Δ per conversation',
    kb(dRss / CONVERSATIONS),
    kb(fRss / CONVERSATIONS),
    times(dRss, fRss),
    '< 200 KB (goal / 1000)',
  )
  row(`heapUsed Δ for ${CONVERSATIONS} conversations`, mb(dHeap), mb(fHeap), times(dHeap, fHeap))
  row(
    'heapUsed Δ per conversation',
    kb(dHeap / CONVERSATIONS),
    kb(fHeap / CONVERSATIONS),
    times(dHeap, fHeap),
  )
}

// ── Main ───────────────────────────────────────────────────────────────────────────────────────────────

/** Prints the table. */
function print(): void {
  const header = ['what', 'figure', 'floor', 'ratio', 'goal']
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i]?.length ?? 0)))
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'))
  for (const r of rows) console.log(line(r))
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${new Date().toISOString()}, relay bench (loopback)`)
  const work = await mkdtemp(join(tmpdir(), 'toolmark-bench-relay-'))
  const started = performance.now()
  try {
    const tools = await latency(work)
    await memory(tools)
  } finally {
    print()
    console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`)
    await rm(work, { recursive: true, force: true })
  }
}

const mode = process.argv[2]
if (mode === '--server-child') await serverChild()
else if (mode === '--floor-child') await floorChild()
else
  await main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
