import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ToolResult } from '@toolmark/core'
// The offline demo agent drives these tests' conversations.
import { EmbeddedProvider } from '@toolmark/offline-agent'
import { type AgentToPageMessage, PROTOCOL_VERSION } from '@toolmark/protocol'
import Database from 'better-sqlite3'
import type { EventSourceMessage } from 'eventsource-parser'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { Redis } from 'ioredis'
import pg from 'pg'
import { inject, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { startBalancer } from '../../../../../tests/support/balancer.ts'
import { type FakeTool, fakeTool } from '../../../../offline-agent/src/__tests__/fake-tool.ts'
import type { Agent } from '../../agent/loop.ts'
import type { Provider, ProviderEvent, ProviderRequest } from '../../agent/types.ts'
import type { Authenticate } from '../../http/app.ts'
import { serve } from '../../node.ts'
import { openPostgresStore } from '../../postgres.ts'
import { createRedisCluster } from '../../redis.ts'
import type { Rejection, Relay } from '../../relay/relay.ts'
import { createToolmarkServer, type ToolmarkServer, type ToolmarkServerOptions } from '../../server.ts'
import type { Clock } from '../../shared/clock.ts'
import { openSqliteStore } from '../../sqlite.ts'
import { createMemoryStore } from '../../store/memory.ts'
import type { Store } from '../../store/store.ts'
import { Activity } from './activity.ts'
// Its `ProvidedContext` augmentation types `inject('sharedDeployment')`, for every project compiling this file.
import type {} from './shared-deployment.setup.ts'

export { type FakeTool, fakeTool }

/**
 * Which deployment the harness runs against: `single`, one instance with an in-memory SQLite store (the
 * `server` test project), or `three`, three instances sharing one PostgreSQL and one Redis behind a load
 * balancer without sticky sessions (the `server-shared` project, whose global setup starts both).
 */
export const DEPLOYMENT: 'single' | 'three' = inject('sharedDeployment') ? 'three' : 'single'

/** The server options a test may set. */
export type Config = Pick<
  ToolmarkServerOptions,
  | 'allowedOrigins'
  | 'callDeadlineMs'
  | 'maxSessions'
  | 'sessionSecret'
  | 'sessionTtlMs'
  | 'sseKeepAliveMs'
  | 'maxPageConnectionsPerUser'
  | 'maxChatStreamsPerUser'
  | 'maxQueuedTurnsPerUser'
  | 'maxConversationsPerUser'
  | 'confirmationTtlMs'
  | 'reaskConfirmations'
  | 'pageWaitMs'
>

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

/** A started server on 127.0.0.1:0 with an in-memory store, plus what it logged and rejected. */
export interface TestServer {
  server: RunningServer
  /** What every instance rejected, in the order they did. */
  rejections: Rejection[]
  /** What every instance logged, in order. */
  logs: string[]
  /** A new browser (its own cookie jar, so its own user) with a session (it started a conversation). */
  browser(): Promise<Browser>
  /**
   * Resolves once every instance has handled everything that reached it: the page messages it received, the
   * messages instances sent each other because of them (flush a raw socket with ping/pong first).
   */
  settled(): Promise<void>
  /** The messages instances handed each other (three instances), as `<kind> to <A|B|C>`, in order. */
  crossings: readonly string[]
}

/** What a test server is started with: a provider, a manual clock, configuration overrides. */
export interface TestServerOptions {
  provider?: Provider
  clock?: Clock
  config?: Partial<Config>
  /** The app's `authenticate` (else the demo session cookie). */
  authenticate?: Authenticate
  /**
   * One instance only: the store, by default SQLite in memory; `sqlite-file` a SQLite file (its rows read back
   * by `atRest`), `memory` the in-memory store (what it was handed recorded for `atRest`).
   */
  store?: 'sqlite-file' | 'memory'
}

/** Starts the harness's server: one instance, or three sharing PostgreSQL and Redis (see {@link DEPLOYMENT}). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const activity = new Activity()
  const logs: string[] = []
  const log = (line: string) => logs.push(line)
  const rejections: Rejection[] = []
  const now = options.clock ? options.clock.now : Date.now
  const provider = options.provider ?? new EmbeddedProvider()
  const start = async (store: Store, extra: Partial<ToolmarkServerOptions> = {}) => {
    const toolmark = createToolmarkServer({
      store: activity.store(store),
      provider,
      chatCompletions: new EmbeddedProvider(),
      log,
      ...options.config,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.authenticate ? { authenticate: options.authenticate } : {}),
      ...extra,
    })
    activity.relay(toolmark.relay)
    toolmark.relay.on('rejected', (r) => rejections.push(r))
    return { toolmark, node: await serve(toolmark, { port: 0, host: '127.0.0.1', log }) }
  }
  let server: RunningServer
  if (DEPLOYMENT === 'single') {
    const dir = options.store === 'sqlite-file' ? mkdtempSync(join(tmpdir(), 'toolmark-at-rest-')) : undefined
    const handed: unknown[] = []
    const store =
      options.store === 'memory'
        ? recording(createMemoryStore(now), handed)
        : openSqliteStore(dir ? join(dir, 'store.db') : ':memory:', now)
    const { toolmark, node } = await start(store)
    server = {
      async atRest() {
        if (options.store === 'memory') return { rows: { handed: structuredClone(handed) }, keys: [] }
        if (!dir) throw new Error("atRest() reads a SQLite file: start with store: 'sqlite-file'")
        const db = new Database(join(dir, 'store.db'), { readonly: true })
        try {
          const tables = db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .all() as Array<{ name: string }>
          const rows: AtRest['rows'] = {}
          for (const { name } of tables) rows[name] = db.prepare(`SELECT * FROM "${name}"`).all()
          return { rows, keys: [] }
        } finally {
          db.close()
        }
      },
      url: node.url,
      port: node.port,
      instances: [node.url],
      store: toolmark.store,
      relay: toolmark.relay,
      agent: waitingAgent([toolmark.agent], activity),
      provider,
      dropBridgeStreams: () => toolmark.dropBridgeStreams(),
      close: () =>
        node
          .close()
          .then(() => store.close())
          .finally(() => dir && rmSync(dir, { recursive: true, force: true })),
    }
  } else {
    server = await startThree(start, activity, provider, now, log)
  }
  return {
    server,
    rejections,
    logs,
    settled: () => activity.settled(),
    crossings: activity.crossings,
    async browser() {
      const b = new Browser(server.url)
      b.settled = () => activity.settled()
      b.gone = (clientId) => activity.gone(clientId)
      await b.createConversation() // sessions are created lazily, by the first conversation
      return b
    },
  }
}

/** `store` with every call's arguments and answer pushed onto `handed` (as JSON values). */
function recording(store: Store, handed: unknown[]): Store {
  const keep = (value: unknown) => handed.push(JSON.parse(JSON.stringify(value ?? null)))
  return new Proxy(store, {
    get: (target, key) => {
      const value: unknown = Reflect.get(target, key)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        keep(args)
        const out: unknown = (value as (...a: unknown[]) => unknown).apply(target, args)
        if (out instanceof Promise) void out.then(keep, () => {})
        else keep(out)
        return out
      }
    },
  })
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
function waitingAgent(agents: Agent[], activity: Activity): Pick<Agent, 'idle' | 'busy'> {
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
async function startThree(
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

/**
 * A file's `server()`: starts a test server with `defaults` (configuration merged with the
 * call's) and closes it when the test that started it finishes.
 */
export function testServers(
  defaults: TestServerOptions = {},
): (options?: TestServerOptions) => Promise<TestServer> {
  return async (options = {}) => {
    const t = await startTestServer({
      ...defaults,
      ...options,
      config: { ...defaults.config, ...options.config },
    })
    onTestFinished(() => t.server.close())
    return t
  }
}

/** A test server with no defaults, closed when the test that started it finishes. */
export const testServer = testServers()

/** The events of a `text/event-stream` response body (parsed by `eventsource-parser`; comments skipped). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  // The cast bridges lib.dom's and Node's stream typings; at runtime it is Node's own TextDecoderStream.
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    reader.releaseLock()
  }
}

/** A cookie-keeping HTTP client standing in for one browser. */
export class Browser {
  cookie = ''
  /** Resolves once the servers handled what reached them (set by `TestServer.browser()`). */
  settled: () => Promise<void> = () => Promise.resolve()
  /** Resolves once no server connection carries the page load any more (set by `TestServer.browser()`). */
  gone: (clientId: string) => Promise<void> = () => Promise.resolve()
  constructor(readonly base: string) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookie) headers.set('cookie', this.cookie)
    const response = await fetch(this.base + path, { ...init, headers })
    const set = response.headers.get('set-cookie')
    if (set) this.cookie = set.split(';')[0]!
    return response
  }

  async createConversation(): Promise<string> {
    const response = await this.fetch('/api/conversations', { method: 'POST' })
    return ((await response.json()) as { id: string }).id
  }

  async say(conversation: string, text: string): Promise<Response> {
    return this.fetch(`/api/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    })
  }

  async messages(conversation: string): Promise<Array<{ role: string; text: string; tool?: string }>> {
    const response = await this.fetch(`/api/conversations/${conversation}`)
    return ((await response.json()) as { messages: Array<{ role: string; text: string; tool?: string }> })
      .messages
  }
}

/** Opens a socket like the page does; resolves once open, or with the close code when refused. */
export function openSocket(
  url: string,
  options: { cookie?: string; conversation: string; origin?: string },
): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const headers: Record<string, string> = {}
  if (options.cookie) headers.cookie = options.cookie
  if (options.origin) headers.origin = options.origin
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${options.conversation}`, {
    headers,
  })
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, closed }))
    ws.once('error', reject)
  })
}

/**
 * Resolves once the servers handled everything sent on a raw socket so far: the pong (ordered after every
 * frame before the ping) proves it arrived, `settled()` that every instance handled it.
 */
export async function flushSocket(t: Pick<TestServer, 'settled'>, ws: WebSocket): Promise<void> {
  await new Promise<void>((resolve) => {
    ws.once('pong', () => resolve())
    ws.ping()
  })
  await t.settled()
}

/** The two ways a page reaches the server: one WebSocket, or an SSE stream plus POSTs. */
export type Transport = 'websocket' | 'http'
/** Every transport, for `describe.each`: a suite that runs over both holds the server to one set of rules. */
export const TRANSPORTS: readonly Transport[] = ['websocket', 'http']

/** What a fake page needs from its connection, whichever the transport. */
interface PageLink {
  send(text: string): void
  /** Resolves once the server has handled everything sent so far. */
  flush(): Promise<void>
  close(): Promise<void>
  onMessage(handler: (text: string) => void): void
}

class WebSocketLink implements PageLink {
  constructor(readonly ws: WebSocket) {}
  send(text: string): void {
    this.ws.send(text)
  }
  flush(): Promise<void> {
    // ping/pong is ordered after every frame sent before it
    return new Promise((resolve) => {
      this.ws.once('pong', () => resolve())
      this.ws.ping()
    })
  }
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return
    const done = new Promise((resolve) => this.ws.once('close', resolve))
    this.ws.close()
    await done
  }
  onMessage(handler: (text: string) => void): void {
    this.ws.on('message', (data) => handler(String(data)))
  }
}

/** A page over the HTTP transport: the SSE stream read with `eventsource-parser`, POSTs one at a time. */
export class HttpLink implements PageLink {
  /** The status of every POST, in order. */
  readonly statuses: number[] = []
  /** Where the POSTs go: the stream's server unless a test points them at another instance. */
  postTo: string
  #chain: Promise<void> = Promise.resolve()
  #handlers: Array<(text: string) => void> = []
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>
  /** The id of the latest event, as an `EventSource` keeps it for its `Last-Event-ID`. */
  lastEventId: string

  private constructor(
    readonly url: string,
    readonly cookie: string | undefined,
    /** The page connection; a `ready` on a resumed stream (the server started a new one) replaces it. */
    public stream: string,
    events: AsyncGenerator<EventSourceMessage>,
    readonly abort: AbortController,
    lastEventId: string,
  ) {
    this.postTo = url
    this.lastEventId = lastEventId
    this.ended = (async () => {
      try {
        for await (const event of events) {
          if (event.id !== undefined) this.lastEventId = event.id
          if (event.event === 'ready') this.stream = (JSON.parse(event.data) as { stream: string }).stream
          else if (event.event === undefined) for (const h of this.#handlers) h(event.data)
        }
      } catch {}
    })()
  }

  /**
   * Opens the event stream; the HTTP status when the server refuses it. With `lastEventId`, resumes it as an
   * `EventSource` does after a drop (`Last-Event-ID`).
   */
  static async open(
    url: string,
    options: { cookie?: string; conversation: string; origin?: string; lastEventId?: string },
  ): Promise<HttpLink | number> {
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    if (options.cookie) headers.cookie = options.cookie
    if (options.origin) headers.origin = options.origin
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId
    const abort = new AbortController()
    const response = await fetch(`${url}/toolmark/events?conversation=${options.conversation}`, {
      headers,
      signal: abort.signal,
    })
    if (!response.ok || !response.body) {
      await response.body?.cancel()
      return response.status
    }
    const events = readEvents(response.body)
    if (options.lastEventId) {
      const stream = options.lastEventId.slice(0, options.lastEventId.lastIndexOf(':'))
      return new HttpLink(url, options.cookie, stream, events, abort, options.lastEventId)
    }
    const ready = (await events.next()).value as EventSourceMessage | undefined
    if (ready?.event !== 'ready') throw new Error('the stream did not start with a ready event')
    const { stream } = JSON.parse(ready.data) as { stream: string }
    return new HttpLink(url, options.cookie, stream, events, abort, ready.id ?? `${stream}:0`)
  }

  send(text: string): void {
    this.#chain = this.#chain.then(async () => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-toolmark-stream': this.stream,
      }
      if (this.cookie) headers.cookie = this.cookie
      const response = await fetch(`${this.postTo}/toolmark/messages`, {
        method: 'POST',
        headers,
        body: text,
      })
      await response.body?.cancel()
      this.statuses.push(response.status)
    })
    // A POST still on its way when the test ends fails with the closing server: that is reported by the
    // next `flush()`, never as an unhandled rejection.
    this.#chain.catch(() => {})
  }
  flush(): Promise<void> {
    // each POST is answered after the relay (of the stream's instance) handled it
    return this.#chain
  }
  async close(): Promise<void> {
    this.abort.abort()
    await this.ended
  }
  onMessage(handler: (text: string) => void): void {
    this.#handlers.push(handler)
  }
}

/**
 * Opens a page connection and reports how the server refused it, in WebSocket close codes: an HTTP
 * stream refused with 401 or 403 counts as 4401 or 4403 (the page's transport stops on either).
 * 0 when the connection was accepted.
 */
export async function refusal(
  transport: Transport,
  url: string,
  options: { cookie?: string; conversation: string; origin?: string },
): Promise<number> {
  if (transport === 'websocket') return (await openSocket(url, options)).closed
  const link = await HttpLink.open(url, options)
  if (typeof link === 'number') return link === 401 || link === 403 ? 4000 + link : link
  await link.close()
  return 0
}

/**
 * A page over a real `ws` socket (or the HTTP transport's stream and POSTs): it sends protocol messages, records what the server sends,
 * and (with `autoAnswer`) answers describes and calls from its tool list. Consequential and
 * destructive tools answer `needs_confirmation`; `approve`/`reject` send the `confirmed`.
 */
export class FakePage {
  readonly clientId: string
  readonly inbox: AgentToPageMessage[] = []
  readonly pending = new Map<string, { tool: FakeTool; input: Record<string, unknown> }>()
  readonly calls: Array<{ tool: string; input: Record<string, unknown>; rev?: number }> = []
  autoAnswer = true
  rev = 1
  #waiters: Array<{ match: (m: AgentToPageMessage) => boolean; resolve: (m: AgentToPageMessage) => void }> =
    []

  private constructor(
    readonly link: PageLink,
    public tools: FakeTool[],
    readonly browser: Browser,
    clientId: string = randomUUID(),
  ) {
    this.clientId = clientId
    link.onMessage((data) => {
      const message = JSON.parse(data) as AgentToPageMessage
      if (message.clientId !== this.clientId) return // rule 1: other pages' messages are ignored
      this.inbox.push(message)
      const waiter = this.#waiters.find((w) => w.match(message))
      if (waiter) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1)
        waiter.resolve(message)
      }
      if (this.autoAnswer) this.#answer(message)
    })
  }

  static async open(
    url: string,
    browser: Browser,
    conversation: string,
    tools: FakeTool[],
    options: {
      manifest?: boolean
      transport?: Transport
      /** The page load this connection carries (default a new one): a reconnect of the same page keeps it. */
      clientId?: string
      /** HTTP transport: resume the stream after this event id (`Last-Event-ID`), as an `EventSource` does. */
      lastEventId?: string
    } = {},
  ): Promise<FakePage> {
    let link: PageLink
    if (options.transport === 'http') {
      const opened = await HttpLink.open(url, {
        cookie: browser.cookie,
        conversation,
        ...(options.lastEventId ? { lastEventId: options.lastEventId } : {}),
      })
      if (typeof opened === 'number') throw new Error(`the event stream was refused: HTTP ${opened}`)
      link = opened
    } else {
      link = new WebSocketLink((await openSocket(url, { cookie: browser.cookie, conversation })).ws)
    }
    const page = new FakePage(link, tools, browser, options.clientId)
    if (options.manifest !== false) await page.sendManifest()
    return page
  }

  /** Sends a manifest and waits until the server has processed it (a round trip). */
  async sendManifest(tools = this.tools): Promise<void> {
    this.tools = tools
    this.send({
      protocol: PROTOCOL_VERSION,
      type: 'manifest',
      clientId: this.clientId,
      rev: this.rev,
      tools: tools.map(({ name, llmName, title, description, hints, sensitivePaths }) => ({
        name,
        llmName,
        ...(title === undefined ? {} : { title }),
        description,
        hints,
        ...(sensitivePaths ? { sensitivePaths } : {}),
      })),
    })
    await this.flush()
  }

  /** The page's WebSocket (a page over the WebSocket transport only). */
  get ws(): WebSocket {
    if (!(this.link instanceof WebSocketLink)) throw new Error('this page is not on a WebSocket')
    return this.link.ws
  }

  send(message: unknown): void {
    this.link.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  /**
   * Resolves once the server has handled everything sent so far: the connection's round trip (a ping/pong,
   * or the POSTs' answers) proves it reached the server, then the harness waits until every instance has
   * handled it and what it caused between instances.
   */
  async flush(): Promise<void> {
    await this.link.flush()
    await this.browser.settled()
  }

  /** The next message (already received or future) that matches. */
  next(match: (m: AgentToPageMessage) => boolean = () => true): Promise<AgentToPageMessage> {
    return new Promise((resolve) => this.#waiters.push({ match, resolve }))
  }

  result(id: string, result: ToolResult, clientId = this.clientId): void {
    this.send({ protocol: PROTOCOL_VERSION, type: 'result', clientId, id, result })
  }

  confirmed(confirmId: string, result: ToolResult, clientId = this.clientId): void {
    this.send({ protocol: PROTOCOL_VERSION, type: 'confirmed', clientId, confirmId, result })
  }

  /** Approves the pending confirmation (runs the tool) and sends `confirmed`. */
  async approve(confirmId: string): Promise<ToolResult> {
    const entry = this.pending.get(confirmId)
    if (!entry) throw new Error(`no pending confirmation ${confirmId}`)
    this.pending.delete(confirmId)
    const result = entry.tool.run(entry.input)
    this.confirmed(confirmId, result)
    await this.flush()
    return result
  }

  async reject(confirmId: string): Promise<void> {
    this.pending.delete(confirmId)
    this.confirmed(confirmId, { status: 'cancelled', by: 'operator' })
    await this.flush()
  }

  /** Closes the connection; over a WebSocket, resolves once the server closed its side too and handled that. */
  async close(): Promise<void> {
    await this.link.close()
    if (this.link instanceof WebSocketLink) await this.browser.gone(this.clientId)
  }

  /** The call and describe ids answered so far: like the real page, each is answered once. */
  readonly #answered = new Set<string>()

  #answer(message: AgentToPageMessage): void {
    if (message.type === 'cancel') return
    if (this.#answered.has(message.id)) return
    this.#answered.add(message.id)
    const tool = this.tools.find((t) => t.name === message.tool)
    if (!tool) {
      this.result(message.id, {
        status: 'refused',
        code: 'unknown_tool',
        message: 'Unknown tool',
        rev: this.rev,
      })
      return
    }
    if (message.type === 'describe') {
      const { run: _run, ...entry } = tool
      this.result(message.id, { status: 'ok', data: entry })
      return
    }
    this.calls.push({
      tool: message.tool,
      input: message.input,
      ...(message.rev === undefined ? {} : { rev: message.rev }),
    })
    if (tool.hints.consequential || tool.hints.destructive) {
      const confirmId = randomUUID()
      this.pending.set(confirmId, { tool, input: message.input })
      const title = tool.title ?? tool.name
      const summary = tool.summarize
        ? tool.summarize(message.input)
        : typeof message.input.name === 'string'
          ? `${title} "${message.input.name}"`
          : title
      this.result(message.id, { status: 'needs_confirmation', confirmId, summary, changes: [] })
      return
    }
    this.result(message.id, tool.run(message.input))
  }
}

/** A provider that plays back scripted turns and records every request it gets. */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted'
  readonly requests: ProviderRequest[] = []
  constructor(readonly script: Array<(request: ProviderRequest) => ProviderEvent[]>) {}

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    this.requests.push(
      structuredClone({ system: request.system, messages: request.messages, tools: request.tools }),
    )
    const step = this.script.shift()
    for (const event of step ? step(request) : [{ type: 'text' as const, delta: 'ok' }]) yield event
  }
}

/** Tool-call helper for scripted turns. */
export const toolCall = (id: string, name: string, input: unknown): ProviderEvent => ({
  type: 'tool_call',
  call: { id, name, input },
})
