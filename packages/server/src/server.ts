import { Hono } from 'hono'
import { ConversationEvents } from './agent/events.ts'
import { Agent } from './agent/loop.ts'
import type { Provider } from './agent/types.ts'
import { clusterCoordinator } from './coordinate/cluster.ts'
import type { Coordinator } from './coordinate/coordinator.ts'
import { localCoordinator } from './coordinate/local.ts'
import { createApp } from './http/app.ts'
import { bridgeHttp } from './http/bridge-http.ts'
import { health, type Readiness, shuttingDown } from './http/health.ts'
import { type Authenticate, type SessionCookieOptions, Sessions } from './http/session.ts'
import type { Cluster } from './relay/cluster.ts'
import { Relay } from './relay/relay.ts'
import type { Clock } from './shared/clock.ts'
import { createMemoryStore } from './store/memory.ts'
import type { Store } from './store/store.ts'

/** What {@link createToolmarkServer} is built from. Only `provider` is required. */
export interface ToolmarkServerOptions {
  /**
   * Where users, conversations, messages and call bindings live: `openSqliteStore` from
   * `@toolmark/server/sqlite` on Node, or your own {@link Store}. Default {@link createMemoryStore}:
   * nothing survives a restart, and nothing is shared between instances.
   */
  store?: Store
  /**
   * Shared mode: how this instance reaches the others (`createRedisCluster` from `@toolmark/server/redis`).
   * With a shared store (`openPostgresStore`), any instance then serves any request: a page's calls reach
   * the instance holding its socket or stream, answers come back to the instance that waits, chat events
   * reach every instance. Default none: one instance. A cluster passed in stays open on `close()`.
   */
  cluster?: Cluster
  /** The model behind the agent loop: any object with a `name` and a `stream(request)`. */
  provider: Provider
  /**
   * Maps a request to the app's own user id (a session cookie, Auth.js, a header set by the app's
   * middleware); undefined means nobody is signed in (401). Conversations, event streams and page
   * connections are bound to that id: one user never reads another's conversation (404).
   * Default: the demo's signed `tm_session` cookie, created by the first `POST /api/conversations`
   * for an anonymous visitor. That default is for demos only. When it throws or rejects, the request
   * gets `500 internal` (JSON) and the error is logged; a socket is dropped.
   */
  authenticate?: Authenticate
  /** HMAC key of the demo session cookie (no `authenticate`). Default: a random key kept in the store. */
  sessionSecret?: string
  /**
   * Public origins (`scheme://host[:port]`) the server may be reached at besides loopback names;
   * any other `Host` or `Origin` is refused with 403 (DNS rebinding, CSRF). Default: loopback only.
   */
  allowedOrigins?: readonly string[]
  /** How long a page has to answer a `call`/`describe` before the agent sees a timeout. Default 15 000 ms. */
  callDeadlineMs?: number
  /**
   * How long a confirmation's approval is accepted after the page asked for it; later, whichever instance
   * it reaches, it is refused and the agent told it expired. Default 660 000 ms (the page's 600 000 plus a minute).
   */
  confirmationTtlMs?: number
  /**
   * Ask a pending confirmation again when its conversation is bound to a new page load (a reload, another tab,
   * after a restart): the new page shows the card with a new confirmId, and the first answer of any card
   * counts. Asked again until `confirmationTtlMs` after the first card. Default true; false: a gone page's
   * cards are lost and the agent is told they expired.
   */
  reaskConfirmations?: boolean
  /** A demo session unused this long expires, with its conversations. Default 7 days. */
  sessionTtlMs?: number
  /**
   * When the demo session cookie gets `Secure`: by default when the request came over HTTPS (its URL's
   * scheme). Behind a proxy that ends TLS, pass `{ trustProxy: true }` to read `X-Forwarded-Proto`
   * (only if the proxy sets it and drops the client's own), or `{ secure: true }` to always set it.
   */
  sessionCookie?: SessionCookieOptions
  /** Most demo sessions kept; one more removes the least recently used. Default 10 000. */
  maxSessions?: number
  /** Milliseconds between keep-alive comments on event streams. Default 15 000. */
  sseKeepAliveMs?: number
  /**
   * Most page connections (bridge sockets and HTTP page streams) one user holds on this instance at once. One
   * more is refused: a socket is closed with 1013 (try again later), a stream answered 429
   * `too_many_connections` with `Retry-After`. Default 16.
   */
  maxPageConnectionsPerUser?: number
  /** Most chat event streams one user holds open on this instance; one more is 429 `too_many_streams`. Default 16. */
  maxChatStreamsPerUser?: number
  /**
   * Most conversations one user (a demo session is one user) may have; one more `POST /api/conversations` is 429
   * `too_many_conversations`. Needs a store with `countConversations` (the three built in have it). Default 1000.
   */
  maxConversationsPerUser?: number
  /**
   * Most agent turns of one user's messages queued or running on this instance; one more message is 429
   * `too_many_turns` with `Retry-After` (and is not stored). Default 8.
   */
  maxQueuedTurnsPerUser?: number
  /**
   * How long `close()` keeps serving after `/toolmark/ready` turns 503, so a load balancer stops sending
   * this instance new work before its sockets and streams close (set it to the balancer's health-check
   * interval times its failure threshold). Default 0: close at once.
   */
  drainMs?: number
  /** Serves `POST /v1/chat/completions` (OpenAI-compatible) with this provider. Default: not served. */
  chatCompletions?: Provider
  /**
   * Publish the agent's reply as it streams (`text-delta` events on the chat stream, masked like the final
   * message). Default true; false publishes whole messages only.
   */
  streamReplies?: boolean
  /**
   * How long a user's message waits for a page that is connecting (its connection open, its first manifest not
   * there yet), so the model sees the page's tools. Default 2000 ms; 0 never waits.
   */
  pageWaitMs?: number
  /** Answers the requests no route matched (after the Host/Origin check). Default a JSON 404. */
  fallback?: (request: Request) => Response | Promise<Response>
  /** Time and timers (tests). Default the system clock. */
  clock?: Clock
  /** Where errors and relay rejections are logged (already masked). Default the console. */
  log?: (line: string) => void
}

/** A Toolmark server: one `fetch` handler and the parts behind it. */
export interface ToolmarkServer {
  /**
   * Serves the conversation API (`/api/conversations…`), the chat event stream, the bridge's
   * HTTP transport (`/toolmark/events`, `/toolmark/messages`) and the liveness and readiness checks
   * (`/toolmark/health`, `/toolmark/ready`). Mount it wherever a `Request` arrives. A request that needs
   * the database while it is unavailable gets `503 store_unavailable` with `Retry-After`.
   */
  fetch(request: Request): Promise<Response>
  /** The request's user (`authenticate`, else the demo session cookie), or undefined. */
  userOf(request: Request): Promise<string | undefined>
  /** The public origins allowed besides loopback names. */
  readonly allowedOrigins: readonly string[]
  /** The store in use (the one passed in, or the in-memory default). */
  readonly store: Store
  /** The bridge relay: page connections, bound calls, deadlines (`relay.on('rejected', …)` to watch refusals). */
  readonly relay: Relay
  /** The agent loop (`agent.idle(conversationId)` waits for a conversation's turns). */
  readonly agent: Agent
  /**
   * The chat events of every conversation (what `GET /api/conversations/:id/events` streams): subscribe to one
   * conversation to get its messages, busy flag, text deltas and tool parts wherever its turns run.
   */
  readonly events: ConversationEvents
  /** The model behind the agent loop. */
  readonly provider: Provider
  /** Ends every live bridge event stream from the server side; their pages resume (tests, e2e). */
  dropBridgeStreams(): void
  /**
   * Starts draining: `/toolmark/ready` answers 503 from now on while everything else keeps serving; resolves
   * after `drainMs`. Calling it again returns the same promise.
   */
  drain(): Promise<void>
  /**
   * Drains (`drain()`), then ends the event streams (the pages' and the chats'), settles pending calls and
   * waits for running turns; from then on every request answers `503 not_ready` with `Retry-After: 1`. A store
   * passed in stays open. Call it when the host stops: a host that waits for open requests (Next's
   * `next start` on SIGTERM) waits for these streams, which never end by themselves.
   */
  close(): Promise<void>
}

const randomSecret = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

/**
 * Builds the server from a store and a provider. It uses only Web-standard APIs (`Request`,
 * `Response`, streams, Web Crypto), so it runs in a Next.js route handler, Hono, Deno, Bun or Node
 * through `@hono/node-server`. The WebSocket transport is the add-on in `@toolmark/server/node`.
 */
export function createToolmarkServer(options: ToolmarkServerOptions): ToolmarkServer {
  const { provider } = options
  const store = options.store ?? createMemoryStore(options.clock ? options.clock.now : Date.now)
  const now = options.clock ? options.clock.now : Date.now
  const allowedOrigins = options.allowedOrigins ?? []
  const ttl = options.sessionTtlMs ?? 7 * 86_400_000
  const secret = sessionSecret(options, store)
  const log = options.log ? { log: options.log } : {}
  const { coordinator, relay, events, agent } = createParts(options, store)

  // The one way every transport finds a request's user.
  const sessions = new Sessions({
    store,
    secret,
    authenticate: options.authenticate,
    ttlMs: ttl,
    maxSessions: options.maxSessions,
    cookie: options.sessionCookie,
    now,
  })

  const chatStreams = new Set<() => void>()
  const app = createApp({
    chatStreams,
    store,
    agent,
    events,
    sessions,
    fallback: options.fallback,
    chatCompletions: options.chatCompletions,
    allowedOrigins,
    ...(options.sseKeepAliveMs !== undefined ? { sseKeepAliveMs: options.sseKeepAliveMs } : {}),
    ...(options.maxChatStreamsPerUser !== undefined
      ? { maxChatStreamsPerUser: options.maxChatStreamsPerUser }
      : {}),
    ...(options.maxConversationsPerUser !== undefined
      ? { maxConversationsPerUser: options.maxConversationsPerUser }
      : {}),
    now,
    ...log,
  })
  const http = bridgeHttp({
    store,
    relay,
    coordinator,
    userOf: sessions.userOf,
    allowedOrigins,
    ...(options.sseKeepAliveMs !== undefined ? { keepAliveMs: options.sseKeepAliveMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...log,
  })
  // The bridge's HTTP transport (SSE + POST) is mounted first, with its own Host/Origin check, user and error
  // answers; every other request goes on to the app.
  const root = new Hono().route('/', http.app).route('/', app)

  let closing: Promise<void> | undefined
  let stopped = false
  const { drain, readiness } = lifecycle(options, store, coordinator)
  return {
    // Once drained and closing, nothing is served: an event stream opened then would hold up the host's stop.
    fetch: async (request) =>
      stopped ? shuttingDown() : ((await health(request, readiness)) ?? root.fetch(request)),
    userOf: sessions.userOf,
    allowedOrigins,
    store,
    relay,
    agent,
    events,
    provider,
    dropBridgeStreams: () => http.dropStreams(),
    drain,
    close() {
      closing ??= (async () => {
        await drain()
        stopped = true
        http.close()
        for (const end of chatStreams) end()
        await relay.close()
        await agent.close()
      })()
      return closing
    },
  }
}

/** The demo cookie's key, read from the store on first use; a failed read (store down) is tried again. */
function sessionSecret(options: ToolmarkServerOptions, store: Store): () => Promise<string> {
  let secretRead: Promise<string> | undefined
  return (): Promise<string> => {
    if (options.authenticate) return Promise.resolve('')
    if (options.sessionSecret !== undefined) return Promise.resolve(options.sessionSecret)
    secretRead ??= store.secret('session', randomSecret).catch((error: unknown) => {
      secretRead = undefined
      throw error
    })
    return secretRead
  }
}

/** The coordinator, the relay, the conversation events and the agent, built from the options. */
function createParts(options: ToolmarkServerOptions, store: Store) {
  const { provider } = options
  const log = options.log ? { log: options.log } : {}
  // The one place that knows whether this instance is one of several: everything else asks the coordinator.
  const coordinator = options.cluster
    ? clusterCoordinator(options.cluster, {
        ...(options.log ? { log: options.log } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      })
    : localCoordinator()
  const relay = new Relay({
    store,
    coordinator,
    deadlineMs: options.callDeadlineMs ?? 15_000,
    ...(options.confirmationTtlMs !== undefined ? { confirmTtlMs: options.confirmationTtlMs } : {}),
    ...(options.reaskConfirmations !== undefined ? { reaskConfirmations: options.reaskConfirmations } : {}),
    ...(options.maxPageConnectionsPerUser !== undefined
      ? { maxConnectionsPerUser: options.maxPageConnectionsPerUser }
      : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...log,
  })
  const events = new ConversationEvents(coordinator)
  const agent = new Agent({
    store,
    relay,
    provider,
    events,
    coordinator,
    ...(options.streamReplies === false ? { streamReplies: false } : {}),
    ...(options.pageWaitMs !== undefined ? { pageWaitMs: options.pageWaitMs } : {}),
    ...(options.maxQueuedTurnsPerUser !== undefined
      ? { maxQueuedTurnsPerUser: options.maxQueuedTurnsPerUser }
      : {}),
    ...log,
  })

  return { coordinator, relay, events, agent }
}

/** `drain()` and what `/toolmark/ready` checks. */
function lifecycle(options: ToolmarkServerOptions, store: Store, coordinator: Coordinator) {
  // Set by the first `drain()` (which `close()` starts with): from then on `/toolmark/ready` answers 503.
  let draining: Promise<void> | undefined
  const drainMs = Math.max(0, options.drainMs ?? 0)
  const drain = (): Promise<void> => {
    draining ??= new Promise<void>((resolve) => {
      if (drainMs > 0) setTimeout(resolve, drainMs)
      else resolve()
    })
    return draining
  }
  const readiness: Readiness = {
    checks: [...(store.ping ? [() => (store.ping as () => Promise<void>)()] : []), () => coordinator.ping()],
    draining: () => draining !== undefined,
    log: options.log ?? ((line) => console.warn(line)),
  }
  return { drain, readiness }
}

/** A route handler: a `Request` in, a `Response` out. */
export type RouteHandler = (request: Request) => Promise<Response>

/**
 * `GET`, `POST` and `DELETE` for Next.js route handlers: export them from `app/api/[...path]/route.ts`
 * (the conversation API; `DELETE` revokes a remembered approval) and `app/toolmark/[...path]/route.ts`
 * (the bridge's HTTP transport). All are `server.fetch`; the route's own path arguments are not needed.
 */
export function routeHandlers(server: Pick<ToolmarkServer, 'fetch'>): {
  GET: RouteHandler
  POST: RouteHandler
  DELETE: RouteHandler
} {
  const handle: RouteHandler = (request) => server.fetch(request)
  return { GET: handle, POST: handle, DELETE: handle }
}
