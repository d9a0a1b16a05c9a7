// The child processes of the memory measurement, each run as `children.ts --server-child` or
// `children.ts --floor-child` with `--expose-gc`, so the parent's 1000 `ws` clients do not pollute the
// figures. Each answers the parent's `count`, `measure` and `close` requests over IPC.
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { WebSocketServer } from 'ws'
import { HOST } from './shared.ts'

/** What a child reports after GC. */
export interface MemoryReport {
  rss: number
  heapUsed: number
  accepted: number
  rejected: number
}

export type ChildMessage =
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

const mode = process.argv[2]
if (mode === '--server-child') await serverChild()
else if (mode === '--floor-child') await floorChild()
