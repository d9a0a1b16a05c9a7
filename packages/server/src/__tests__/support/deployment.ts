import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import pg from 'pg'
import { inject } from 'vitest'
import { startBalancer } from '../../../../../tests/support/balancer.ts'
import type { Agent } from '../../agent/loop.ts'
import type { Provider } from '../../agent/types.ts'
import type { serve } from '../../node.ts'
import { openPostgresStore } from '../../postgres.ts'
import { createRedisCluster } from '../../redis.ts'
import type { Relay } from '../../relay/relay.ts'
import type { ToolmarkServer, ToolmarkServerOptions } from '../../server.ts'
import type { Store } from '../../store/store.ts'
import type { Activity } from './activity.ts'
// Its `ProvidedContext` augmentation types `inject('sharedDeployment')`, for every project compiling this file.
import type {} from './shared-deployment.setup.ts'

/* What a test deployment is and keeps, and the three-instance deployment of the `server-shared` project. */

/**
 * A server listening on 127.0.0.1 (HTTP and WebSocket): one instance with an in-memory SQLite store, or
 * (`DEPLOYMENT` three) the load balancer in front of three instances, whose `store` and `relay` are the
 * first instance's (everything they answer comes from the shared database) and whose `agent` waits for the
 * turns of all three.
 */
export interface RunningServer {
  url: string
  port: number
  /** Each instance's own URL, the balancer bypassed (first A, the page's instance; one entry for one instance). */
  instances: string[]
  store: Store
  relay: Relay
  agent: Pick<Agent, 'idle' | 'busy'>
  provider: Provider
  dropBridgeStreams(): void
  close(): Promise<void>
  /**
   * Everything the deployment keeps once its work settled: every row of every table (PostgreSQL, or the SQLite
   * file of `store: 'sqlite-file'`), or with `store: 'memory'` everything the store was handed and answered;
   * with three instances also every Redis key of the deployment. Not for the default in-memory SQLite store.
   */
  atRest(): Promise<AtRest>
  /** Three instances: their Redis and the prefix of every key they write. */
  redis?: { url: string; prefix: string }
}

/** What a deployment keeps (see {@link RunningServer.atRest}). */
export interface AtRest {
  /** Table name → its rows (the memory store: `handed` → every call's arguments and answer). */
  rows: Record<string, unknown[]>
  /** Every Redis key of the deployment (three instances), with its type, time to live in ms (-1: none) and content. */
  keys: Array<{ key: string; type: string; ttl: number; value: unknown }>
}

/** Every row of every table in a PostgreSQL schema. */
async function pgRows(url: string, schema: string): Promise<AtRest['rows']> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const tables = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    )
    const rows: AtRest['rows'] = {}
    for (const { table_name } of tables.rows)
      rows[table_name] = (await client.query(`SELECT * FROM ${schema}."${table_name}"`)).rows
    return rows
  } finally {
    await client.end()
  }
}

/** Every Redis key under `prefix`, with its type, time to live and content. */
async function redisKeys(url: string, prefix: string): Promise<AtRest['keys']> {
  const redis = new Redis(url)
  try {
    const keys: AtRest['keys'] = []
    for (const key of (await redis.keys(`${prefix}*`)).sort()) {
      const type = await redis.type(key)
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'stream'
            ? await redis.xrange(key, '-', '+')
            : type === 'zset'
              ? await redis.zrange(key, '0', '-1', 'WITHSCORES')
              : type === 'hash'
                ? await redis.hgetall(key)
                : type === 'set'
                  ? await redis.smembers(key)
                  : type === 'list'
                    ? await redis.lrange(key, 0, -1)
                    : null
      keys.push({ key, type, ttl: await redis.pttl(key), value })
    }
    return keys
  } finally {
    redis.disconnect()
  }
}

/** An agent whose `idle` waits for the conversation's turns on every instance, and for what led to them. */
export function waitingAgent(agents: Agent[], activity: Activity): Pick<Agent, 'idle' | 'busy'> {
  const busy = (conversationId: string) => agents.some((agent) => agent.busy(conversationId))
  return {
    busy,
    async idle(conversationId) {
      for (;;) {
        // A page message still being handled (or on its way to another instance) may queue a turn.
        await activity.settled()
        if (!busy(conversationId)) return
        await Promise.all(agents.map((agent) => agent.idle(conversationId)))
      }
    },
  }
}

/** How many three-instance deployments this test file started (each gets its own schema and key prefix). */
let deployments = 0

/**
 * Three instances, each with its own PostgreSQL pool and Redis coordinator, sharing one database schema and
 * one Redis key prefix (both new for this test), behind a balancer without sticky sessions that sends:
 *
 * - page connections (WebSocket upgrades, `GET /toolmark/events`) to A and C in turn (the first to A, the
 *   next to C, …), so a reload or a second tab lands on another instance than the first page;
 * - chat messages (`POST /api/conversations/:id/messages`) to B: every turn runs on B, so each call
 *   crosses to the page's instance and each answer (and `needs_confirmation`) crosses back;
 * - the HTTP transport's page messages (`POST /toolmark/messages`) to B too, never the stream's instance, so
 *   each is handed to A or C over Redis;
 * - every other request (conversations, sessions, chat event streams) to A, B and C in turn.
 */
export async function startThree(
  start: (
    store: Store,
    extra: Partial<ToolmarkServerOptions>,
  ) => Promise<{ toolmark: ToolmarkServer; node: Awaited<ReturnType<typeof serve>> }>,
  activity: Activity,
  provider: Provider,
  now: () => number,
  log: (line: string) => void,
): Promise<RunningServer> {
  const shared = inject('sharedDeployment')
  if (!shared) throw new Error('no shared deployment was provided')
  const id = `${process.pid}_${++deployments}_${randomUUID().slice(0, 8)}`
  const schema = `t_${id}`
  const admin = new pg.Client({ connectionString: shared.postgresUrl })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const url = `${shared.postgresUrl}?options=${encodeURIComponent(`-c search_path=${schema}`)}`
  const stores = await Promise.all(
    [0, 1, 2].map(() => openPostgresStore({ url, now, max: 4, connectionTimeoutMs: 5000, log })),
  )
  const prefix = `toolmark:${id}:`
  const clusters = stores.map((_, i) =>
    createRedisCluster({
      url: shared.redisUrl,
      prefix,
      instance: `${'ABC'[i]}-${id}`,
      log,
    }),
  )
  const started = await Promise.all(
    stores.map((store, i) => start(store, { cluster: activity.cluster(clusters[i]!, 'ABC'[i]!) })),
  )
  const [a, b, c] = started as [(typeof started)[0], (typeof started)[0], (typeof started)[0]]
  let pages = 0
  let others = 0
  const balancer = await startBalancer(({ method, path, upgrade }) => {
    const pathname = path.split('?')[0]!
    if (upgrade || (method === 'GET' && pathname === '/toolmark/events'))
      return (pages++ % 2 === 0 ? a : c).node.port
    if (
      method === 'POST' &&
      (/^\/api\/conversations\/[^/]+\/messages$/.test(pathname) || pathname === '/toolmark/messages')
    )
      return b.node.port
    return started[others++ % 3]!.node.port
  })
  return {
    url: balancer.url,
    port: balancer.port,
    instances: started.map((s) => s.node.url),
    store: a.toolmark.store,
    relay: a.toolmark.relay,
    agent: waitingAgent(
      started.map((s) => s.toolmark.agent),
      activity,
    ),
    provider,
    dropBridgeStreams: () => {
      for (const s of started) s.toolmark.dropBridgeStreams()
    },
    redis: { url: shared.redisUrl, prefix },
    atRest: async () => ({
      rows: await pgRows(shared.postgresUrl, schema),
      keys: await redisKeys(shared.redisUrl, prefix),
    }),
    async close() {
      await balancer.close()
      await Promise.all(started.map((s) => s.node.close()))
      await Promise.all(clusters.map((cluster) => cluster.close()))
      await Promise.all(stores.map((store) => store.close()))
    },
  }
}
