// Measurement: the agent server's memory per open conversation. The server runs in a child process
// (children.ts, `--expose-gc`), which reports `process.memoryUsage()` after GC. Each conversation: a new
// session (cookie from `POST /api/conversations`), a WebSocket bound to the conversation, and one
// manifest (the demo's real tool list). Floor: a child holding the same number of bare `ws` sockets
// that received the same manifest frame.
import { type ChildProcess, fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type { ToolManifestSummary } from '@toolmark/core'
import { WebSocket } from 'ws'
import type { ChildMessage } from './children.ts'
import { BENCH_DIR, kb, mb, row, step, times } from './shared.ts'

const CONVERSATIONS = 1000
const WARM_CONVERSATIONS = 20
const OPEN_CONCURRENCY = 50
const CHILDREN = fileURLToPath(new URL('children.ts', import.meta.url))

/** A child process running children.ts in `mode`, with an RPC helper. */
async function startChild(mode: '--server-child' | '--floor-child') {
  const child: ChildProcess = fork(CHILDREN, [mode], {
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

/** Memory of the server with `CONVERSATIONS` open conversations, and of the bare `ws` floor. */
export async function memory(tools: ToolManifestSummary[]): Promise<void> {
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
