import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveStatic } from '@hono/node-server/serve-static'
import { OfflineProvider } from '@toolmark/offline-agent'
import { type Agent, createToolmarkServer, type Provider, type Relay, type Store } from '@toolmark/server'
import { serve } from '@toolmark/server/node'
import { openPostgresStore } from '@toolmark/server/postgres'
import { createRedisCluster } from '@toolmark/server/redis'
import { openSqliteStore } from '@toolmark/server/sqlite'
import type { Clock } from '@toolmark/server/testing'
import { Hono } from 'hono'
import { createProvider } from './agent/providers/index.ts'
import type { Config } from './config.ts'

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

/** The built demo with an SPA fallback, or a page saying how to build it. */
export function staticSite(staticDir: string): (request: Request) => Response | Promise<Response> {
  const app = new Hono()
  const index = join(staticDir, 'index.html')
  if (existsSync(index)) {
    app.use('*', serveStatic({ root: staticDir }))
    app.get('*', (c) => c.html(readFileSync(index, 'utf8')))
  } else {
    app.get('*', (c) =>
      c.html(
        '<!doctype html><title>Toolmark agent server</title><p>The demo is not built. Run ' +
          '<code>pnpm --filter @toolmark-apps/demo build</code> (or <code>pnpm demo</code>) and reload.</p>',
      ),
    )
  }
  app.notFound((c) => c.json({ error: { code: 'not_found', message: 'Not found' } }, 404))
  return (request) => app.fetch(request)
}

/**
 * Starts `@toolmark/server` with the demo's configuration on `config.host:config.port` (port 0 picks
 * a free one): the SQLite store (PostgreSQL with `DATABASE_URL`; shared mode through Redis with
 * `REDIS_URL`), the configured provider, the offline planner at
 * `/v1/chat/completions`, the demo session cookie, the built demo as static files.
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options
  const now = options.clock ? options.clock.now : Date.now
  const store =
    options.store ??
    (config.databaseUrl
      ? await openPostgresStore({
          url: config.databaseUrl,
          now,
          ...(options.log ? { log: options.log } : {}),
        })
      : openSqliteStore(config.dataFile, now))
  // Shared mode: the same code, with the instances coordinated through Redis.
  const cluster = config.redisUrl
    ? createRedisCluster({ url: config.redisUrl, ...(options.log ? { log: options.log } : {}) })
    : undefined
  const provider = options.provider ?? createProvider(config)
  const toolmark = createToolmarkServer({
    store,
    ...(cluster ? { cluster } : {}),
    provider,
    ...(config.sessionSecret !== undefined ? { sessionSecret: config.sessionSecret } : {}),
    allowedOrigins: config.allowedOrigins,
    callDeadlineMs: config.callDeadlineMs,
    confirmationTtlMs: config.confirmationTtlMs,
    drainMs: config.drainMs,
    sessionTtlMs: config.sessionTtlMs,
    maxSessions: config.maxSessions,
    sseKeepAliveMs: config.sseKeepAliveMs,
    chatCompletions: new OfflineProvider(),
    fallback: staticSite(config.staticDir),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.log ? { log: options.log } : {}),
  })
  let node: Awaited<ReturnType<typeof serve>>
  try {
    node = await serve(toolmark, {
      port: config.port,
      host: config.host,
      ...(options.log ? { log: options.log } : {}),
    })
  } catch (error) {
    // Port in use or not allowed: release everything opened so far, the SQLite file included.
    await toolmark.close()
    await cluster?.close()
    if (!options.store) await store.close()
    throw error
  }
  let closing: Promise<void> | undefined
  return {
    url: node.url,
    port: node.port,
    store,
    relay: toolmark.relay,
    agent: toolmark.agent,
    provider,
    dropBridgeStreams: () => toolmark.dropBridgeStreams(),
    close() {
      closing ??= node
        .close()
        .then(() => cluster?.close())
        .then(() => store.close())
      return closing
    },
  }
}
