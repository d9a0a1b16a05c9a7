import { randomBytes } from 'node:crypto'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { ConversationEvents } from './agent/events.ts'
import { Agent } from './agent/loop.ts'
import { createProvider } from './agent/providers/index.ts'
import type { Provider } from './agent/types.ts'
import type { Config } from './config.ts'
import { createApp } from './http/app.ts'
import { bridgeHttp, EVENTS_PATH, MESSAGES_PATH } from './http/bridge-http.ts'
import { attachWebSocket } from './http/ws.ts'
import { Relay } from './relay/relay.ts'
import type { Clock } from './shared/clock.ts'
import { openSqliteStore } from './store/sqlite.ts'
import type { Store } from './store/store.ts'

export interface StartOptions {
  config: Config
  /** Overrides the provider `config.provider` names (tests). */
  provider?: Provider
  /** Overrides the store `config.dataFile` names. */
  store?: Store
  clock?: Clock
  /** Log sink for relay rejections and errors. Default console. */
  log?: (line: string) => void
}

/** A started server and its parts. */
export interface RunningServer {
  /** `http://host:port` */
  url: string
  port: number
  store: Store
  relay: Relay
  agent: Agent
  provider: Provider
  /** Ends every live bridge event stream from the server side; their pages resume (tests, e2e). */
  dropBridgeStreams(): void
  /** Stops accepting, closes sockets and streams, settles pending calls, closes the store. */
  close(): Promise<void>
}

/** Starts the HTTP + WebSocket server on `config.host:config.port` (port 0 picks a free one). */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options
  const now = options.clock ? options.clock.now : Date.now
  const store = options.store ?? openSqliteStore(config.dataFile, now)
  const secret = config.sessionSecret ?? store.secret('session', () => randomBytes(32).toString('base64url'))
  const relay = new Relay({
    store,
    deadlineMs: config.callDeadlineMs,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.log ? { log: options.log } : {}),
  })
  const provider = options.provider ?? createProvider(config)
  const events = new ConversationEvents()
  const agent = new Agent({ store, relay, provider, events, ...(options.log ? { log: options.log } : {}) })
  const app = createApp({
    store,
    agent,
    events,
    secret,
    staticDir: config.staticDir,
    allowedOrigins: config.allowedOrigins,
    sessionTtlMs: config.sessionTtlMs,
    maxSessions: config.maxSessions,
    sseKeepAliveMs: config.sseKeepAliveMs,
    now,
    ...(options.log ? { log: options.log } : {}),
  })
  const http = bridgeHttp({
    store,
    relay,
    secret,
    allowedOrigins: config.allowedOrigins,
    sessionTtlMs: config.sessionTtlMs,
    keepAliveMs: config.sseKeepAliveMs,
    now,
    ...(options.clock ? { clock: options.clock } : {}),
  })
  // The bridge's HTTP transport (SSE + POST) answers its two paths; everything else is the app's.
  const bridgePaths = new Set([EVENTS_PATH, MESSAGES_PATH])
  const server = createAdaptorServer({
    fetch: (request, env) =>
      bridgePaths.has(new URL(request.url).pathname) ? http.app.fetch(request, env) : app.fetch(request, env),
  }) as Server
  const ws = attachWebSocket(server, {
    store,
    relay,
    secret,
    allowedOrigins: config.allowedOrigins,
    sessionTtlMs: config.sessionTtlMs,
    now,
    ...(options.log ? { log: options.log } : {}),
  })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.port, config.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    // Port in use or not allowed: release everything opened so far, the SQLite file included.
    ws.close()
    http.close()
    relay.close()
    await agent.close()
    if (!options.store) store.close()
    throw error
  }
  const port = (server.address() as AddressInfo).port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${port}`,
    port,
    store,
    relay,
    agent,
    provider,
    dropBridgeStreams: () => http.dropStreams(),
    close() {
      closing ??= (async () => {
        ws.close()
        http.close()
        relay.close()
        await agent.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        store.close()
      })()
      return closing
    },
  }
}
