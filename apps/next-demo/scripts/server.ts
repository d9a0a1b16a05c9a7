import { EventEmitter } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { getRequestListener } from '@hono/node-server'
import { createToolmarkServer } from '@toolmark/server'
import { attachWebSocket, WS_PATH } from '@toolmark/server/node'
import { openSqliteStore } from '@toolmark/server/sqlite'
import { createProvider, loadConfig } from '@toolmark-apps/agent-server'
import next from 'next'

export interface NextDemoOptions {
  /** `next dev` (StrictMode, fast refresh) instead of the production build. */
  dev?: boolean
  /** Environment of the agent server (`PROVIDER`, `DATA_FILE`, `CALL_DEADLINE_MS`, ...), plus `HOST` and `PORT`. */
  env?: Record<string, string | undefined>
  log?: (line: string) => void
}

export interface NextDemo {
  url: string
  close(): Promise<void>
}

const APP_DIR = fileURLToPath(new URL('..', import.meta.url))

/**
 * One origin for the app and its agent: the reference agent server's HTTP API (`/api/*`) and bridge
 * socket (`/toolmark/ws`) next to Next's own handler (the production server `next start` runs, or
 * `next dev`). Same origin matters: the agent server's session cookie and Origin checks refuse
 * anything else, and the bridge must never talk to a foreign origin.
 */
export async function startNextDemo(options: NextDemoOptions = {}): Promise<NextDemo> {
  const env: Record<string, string | undefined> = { ...options.env }
  env.DATA_FILE ||= ':memory:'
  env.PROVIDER ||= 'embedded'
  const config = loadConfig(env as NodeJS.ProcessEnv)
  const log = options.log ?? ((line: string) => console.warn(line))
  const store = openSqliteStore(config.dataFile)
  const toolmark = createToolmarkServer({
    store,
    provider: createProvider(config),
    ...(config.sessionSecret !== undefined ? { sessionSecret: config.sessionSecret } : {}),
    callDeadlineMs: config.callDeadlineMs,
    log,
  })
  const api = getRequestListener((request: Request) => toolmark.fetch(request))
  // The agent's socket handler answers every upgrade it sees, so it only sees the bridge's path.
  const bridgeUpgrades = new EventEmitter()
  const sockets = attachWebSocket(bridgeUpgrades as unknown as Server, toolmark, { log })

  let handle: ReturnType<ReturnType<typeof next>['getRequestHandler']> | undefined
  let upgrade: ReturnType<ReturnType<typeof next>['getUpgradeHandler']> | undefined
  const server = createServer((req, res) => {
    const path = req.url ?? '/'
    if (path === '/api' || path.startsWith('/api/') || path.startsWith('/toolmark/'))
      return void api(req, res)
    if (!handle) {
      res.writeHead(503).end('starting')
      return
    }
    void handle(req, res)
  })
  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname === WS_PATH)
      bridgeUpgrades.emit('upgrade', req, socket, head)
    else if (upgrade) void upgrade(req, socket, head)
    else socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const app = next({ dev: options.dev === true, dir: APP_DIR, hostname: config.host, port, quiet: true })
  await app.prepare()
  handle = app.getRequestHandler()
  upgrade = app.getUpgradeHandler()
  let closing: Promise<void> | undefined
  return {
    url: `http://${config.host}:${port}`,
    close() {
      closing ??= (async () => {
        sockets.close()
        await toolmark.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        await app.close()
        await store.close()
      })()
      return closing
    },
  }
}
