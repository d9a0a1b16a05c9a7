import { type Context, Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ConversationEvents } from '../agent/events.ts'
import { type Agent, MAX_USER_TEXT, toChat } from '../agent/loop.ts'
import type { Provider } from '../agent/types.ts'
import type { ChatEvent, ConversationBody, CreatedBody, ErrorBody } from '../shared/contract.ts'
import {
  LimitExceeded,
  MAX_CHAT_STREAMS_PER_USER,
  MAX_CONVERSATIONS_PER_USER,
  PerUser,
} from '../shared/limits.ts'
import { escapeForLog } from '../shared/log.ts'
import type { Conversation, Session, Store } from '../store/store.ts'
import { readJson } from './body.ts'
import { grantRoutes } from './grants.ts'
import { isStoreUnavailable, storeUnavailable } from './health.ts'
import { chatCompletions } from './openai-compat.ts'
import { readSessionCookie, type SessionCookieOptions, setSessionCookie } from './session.ts'

export interface HttpDeps {
  store: Store
  agent: Agent
  events: ConversationEvents
  /** HMAC key of the session cookie (read from the store on first use, so it is a promise). */
  secret: () => Promise<string>
  /**
   * Maps a request to the app's own user id (undefined: nobody signed in). When set, the demo session
   * cookie is neither read nor issued.
   */
  authenticate?: Authenticate | undefined
  /** Answers the requests no route matched (after the Host/Origin check). Default a JSON 404. */
  fallback?: ((request: Request) => Response | Promise<Response>) | undefined
  /** Serves `POST /v1/chat/completions` with this provider (no session needed). Default: not served. */
  chatCompletions?: Provider | undefined
  /** Public origins allowed besides loopback names (see {@link checkOrigin}). */
  allowedOrigins?: readonly string[]
  /** Sliding session lifetime in milliseconds. Default 7 days. */
  sessionTtlMs?: number
  /** When the session cookie is `Secure`. Default: when the request came over HTTPS. */
  sessionCookie?: SessionCookieOptions | undefined
  /** Most sessions kept. Default 10 000. */
  maxSessions?: number
  /** Milliseconds between SSE keep-alive comments. Default 15 000. */
  sseKeepAliveMs?: number
  /** Most chat event streams one user holds open at once (429 `too_many_streams` past it). Default 16. */
  maxChatStreamsPerUser?: number
  /** Most conversations one user may have (429 `too_many_conversations` past it). Default 1000. */
  maxConversationsPerUser?: number
  /** Time source (tests). Default `Date.now`. */
  now?: () => number
  /** Error sink. Default `console.error`. */
  log?: (line: string) => void
}

/**
 * Maps a request to the app's user: a stable, non-empty id (from a session cookie, Auth.js, a header
 * set by the app's middleware), or undefined when nobody is signed in.
 */
export type Authenticate = (request: Request) => string | undefined | Promise<string | undefined>

type Env = { Variables: { session: Session | undefined; userId: string | undefined } }

/** The answer for a request without a user (no valid session, or `authenticate` found nobody). */
export const UNAUTHENTICATED = { code: 'unauthenticated', message: 'No valid session' } as const

/**
 * What the 500 answer and the log line say when the app's `authenticate` throws (a `currentUser` that
 * was never written, a session store that is down): what it must return, and the development default.
 */
export const AUTHENTICATE_FAILED =
  "The server's `authenticate(request)` option threw. It must return the signed-in user's id (a " +
  'non-empty string), or undefined when nobody is signed in: write it with your own sign-in (a session ' +
  'cookie, Auth.js). For a first run, leave `authenticate` out: the server then gives each browser its ' +
  'own signed cookie session.'

/** The app's `authenticate` threw: the request's user cannot be known. Its message says what to fix. */
export class AuthenticateFailed extends Error {
  constructor(cause: unknown) {
    super(AUTHENTICATE_FAILED, { cause })
    this.name = 'AuthenticateFailed'
  }
}

/** The user id `authenticate` returned, when it is a non-empty string; anything else is nobody. */
export async function userOf(authenticate: Authenticate, request: Request): Promise<string | undefined> {
  let id: string | undefined
  try {
    id = await authenticate(request)
  } catch (error) {
    throw new AuthenticateFailed(error)
  }
  return typeof id === 'string' && id !== '' ? id : undefined
}

/**
 * What a log line says about an error that failed a request: made safe for one line, and for a throwing
 * `authenticate`, {@link AUTHENTICATE_FAILED} in full followed by what it threw.
 */
export function failureForLog(error: unknown): string {
  if (!(error instanceof AuthenticateFailed)) return escapeForLog(String(error))
  return `${AUTHENTICATE_FAILED} It threw: ${escapeForLog(String(error.cause))}`
}

/** The JSON body of a 500: `internal`, with what to fix when the app's `authenticate` threw. */
export function internalError(error: unknown): ErrorBody {
  const message = error instanceof AuthenticateFailed ? AUTHENTICATE_FAILED : 'Internal server error'
  return { error: { code: 'internal', message } }
}

/** Largest request body accepted on the API, in bytes (a message is at most 4000 characters). */
export const MAX_BODY_BYTES = 64 * 1024

/** A session's last use is written at most this often (it moves the sliding expiry). */
const TOUCH_EVERY_MS = 60_000

const LOOPBACK_V4 = /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/

/** True for loopback host names: `localhost`, `*.localhost`, `127.0.0.0/8` and `[::1]`. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  return name === 'localhost' || name.endsWith('.localhost') || LOOPBACK_V4.test(name) || name === '[::1]'
}

/** The `host[:port]` of a `Host` header, or undefined when it is not a bare host. */
function parseHost(header: string | undefined): URL | undefined {
  if (!header || /[/?#@\s\\]/.test(header)) return undefined
  try {
    const url = new URL(`http://${header}`)
    return url.hostname === '' ? undefined : url
  } catch {
    return undefined
  }
}

/**
 * The host a request was sent to: its `Host` header, else its URL's host (a `Request` built in
 * code, or a runtime that keeps the host in the URL only).
 */
export function hostOf(request: Request): string | undefined {
  return request.headers.get('host') ?? (URL.canParse(request.url) ? new URL(request.url).host : undefined)
}

/** Why {@link checkOrigin} refused a request, or undefined when it may proceed. */
export type OriginProblem = 'host' | 'origin' | undefined

/**
 * DNS-rebinding and cross-origin defence, run before any other work. The `Host` header must name a
 * loopback host (any port) or the host of one of `allowedOrigins`; a rebinding attacker's page
 * sends its own name there, so comparing `Origin` with `Host` alone proves nothing. An `Origin`,
 * when present, must then be this very host (`http://` or `https://`) or exactly one of
 * `allowedOrigins`; `Origin: null` is refused. A request without `Origin` (curl, same-origin GET)
 * passes on `Host` alone.
 */
export function checkOrigin(
  host: string | undefined,
  origin: string | undefined,
  allowedOrigins: readonly string[] = [],
): OriginProblem {
  const parsed = parseHost(host)
  if (!parsed) return 'host'
  const allowedHost =
    isLoopbackName(parsed.hostname) || allowedOrigins.some((o) => new URL(o).host === parsed.host)
  if (!allowedHost) return 'host'
  if (origin === undefined) return undefined
  if (allowedOrigins.includes(origin)) return undefined
  return origin === `http://${parsed.host}` || origin === `https://${parsed.host}` ? undefined : 'origin'
}

const fail = (c: Context, status: ContentfulStatusCode, code: string, message: string) =>
  c.json({ error: { code, message } } satisfies ErrorBody, status)

/** 429 for a user over one of the server's caps, with `Retry-After`. */
const tooMany = (c: Context, error: LimitExceeded) => {
  if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter))
  return fail(c, 429, error.code, error.message)
}

/** The answer for a request {@link checkOrigin} refused. */
export const ORIGIN_REFUSED: Readonly<Record<'host' | 'origin', ErrorBody['error']>> = {
  host: {
    code: 'host_not_allowed',
    message: 'This server answers only on loopback names and the origins listed in ALLOWED_ORIGINS',
  },
  origin: { code: 'cross_origin', message: 'Cross-origin request refused' },
}

const NOT_FOUND = { code: 'not_found', message: 'No such conversation' } as const

/** Most conversation rows the chat API keeps in memory (see `own` in {@link createApp}). */
const CONVERSATION_CACHE_SIZE = 10_000

/**
 * The Hono app: Host/Origin checks, the user (`authenticate`, else the demo's session cookie (signed, HttpOnly, SameSite=Lax; created
 * only by `POST /api/conversations`, sliding TTL, bounded table)), the conversation API of the demo
 * contract, server-sent chat events, and the demo's static files with an SPA fallback. Every 4xx
 * answer is JSON `{ error: { code, message } }`.
 */
export function createApp(deps: HttpDeps): Hono<Env> {
  const { store, agent, events, secret, authenticate } = deps
  const allowedOrigins = deps.allowedOrigins ?? []
  const ttl = deps.sessionTtlMs ?? 7 * 86_400_000
  const maxSessions = deps.maxSessions ?? 10_000
  const keepAliveMs = deps.sseKeepAliveMs ?? 15_000
  const now = deps.now ?? Date.now
  const chatStreams = new PerUser(deps.maxChatStreamsPerUser ?? MAX_CHAT_STREAMS_PER_USER)
  const maxConversations = deps.maxConversationsPerUser ?? MAX_CONVERSATIONS_PER_USER
  /** The user's conversation, unless the user already has `maxConversations` (a store that counts them). */
  const createConversation = async (c: Context<Env>, userId: string) => {
    if (store.countConversations && (await store.countConversations(userId)) >= maxConversations) {
      const message = `Too many conversations: at most ${maxConversations} per user`
      return tooMany(c, new LimitExceeded('too_many_conversations', message))
    }
    return c.json({ id: (await store.createConversation(userId)).id } satisfies CreatedBody, 201)
  }
  const app = new Hono<Env>()

  const issueCookie = async (c: Context, session: Session) =>
    setSessionCookie(c, session.id, await secret(), Math.floor(ttl / 1000), deps.sessionCookie)

  // Every route, the OpenAI-compatible one included, sits behind the Host/Origin check.
  app.use('*', async (c, next) => {
    const problem = checkOrigin(hostOf(c.req.raw), c.req.header('origin'), allowedOrigins)
    if (problem) return fail(c, 403, ORIGIN_REFUSED[problem].code, ORIGIN_REFUSED[problem].message)
    await next()
  })
  // The embedded planner as an OpenAI-compatible endpoint: no session (mounted before the session middleware).
  if (deps.chatCompletions) app.route('/', chatCompletions(deps.chatCompletions))

  app.use('*', async (c, next) => {
    if (authenticate) {
      c.set('session', undefined)
      c.set('userId', await userOf(authenticate, c.req.raw))
      return next()
    }
    // Read the session, never create one here: drive-by requests (a favicon, an <img>) leave no rows.
    const id = await readSessionCookie(c, await secret())
    let session = id ? await store.getSession(id) : undefined
    const at = now()
    if (session && session.lastSeenAt + ttl <= at) session = undefined // expired; pruned on next create
    if (session && at - session.lastSeenAt >= TOUCH_EVERY_MS) {
      await store.touchSession(session.id, at)
      session = { ...session, lastSeenAt: at }
      await issueCookie(c, session)
    }
    c.set('session', session)
    c.set('userId', session?.userId)
    await next()
  })

  // A conversation's row never changes (it is only removed, with its user, when that user's last session
  // is pruned, and then no request carries that user any more): the rows read are kept, the latest
  // CONVERSATION_CACHE_SIZE of them, so the ownership check of each chat request reads the store once.
  const conversations = new Map<string, Conversation>()
  const conversationOf = async (id: string): Promise<Conversation | undefined> => {
    const kept = conversations.get(id)
    if (kept) return kept
    const conversation = await store.getConversation(id)
    if (conversation) {
      conversations.set(id, conversation)
      if (conversations.size > CONVERSATION_CACHE_SIZE)
        conversations.delete(conversations.keys().next().value!)
    }
    return conversation
  }
  const own = async (c: Context<Env>, id: string) => {
    const userId = c.get('userId')
    const conversation = userId ? await conversationOf(id) : undefined
    return conversation && conversation.userId === userId ? conversation : undefined
  }

  app.post('/api/conversations', async (c) => {
    if (authenticate) {
      const userId = c.get('userId')
      if (!userId) return fail(c, 401, UNAUTHENTICATED.code, UNAUTHENTICATED.message)
      await store.ensureUser(userId)
      return createConversation(c, userId)
    }
    let session = c.get('session')
    if (!session) {
      const at = now()
      await store.pruneSessions(at - ttl, maxSessions - 1)
      session = await store.createSession((await store.createUser()).id)
      await issueCookie(c, session)
    }
    return createConversation(c, session.userId)
  })

  app.get('/api/conversations/:id', async (c) => {
    const conversation = await own(c, c.req.param('id'))
    if (!conversation) return fail(c, 404, NOT_FOUND.code, NOT_FOUND.message)
    const messages = (await store.listMessages(conversation.id)).filter((m) => m.visible).map(toChat)
    return c.json({ id: conversation.id, messages } satisfies ConversationBody)
  })

  app.post('/api/conversations/:id/messages', async (c) => {
    const conversation = await own(c, c.req.param('id'))
    if (!conversation) return fail(c, 404, NOT_FOUND.code, NOT_FOUND.message)
    if (!c.req.header('content-type')?.startsWith('application/json')) {
      return fail(c, 415, 'unsupported_media_type', 'Send the message as application/json')
    }
    // Read up to MAX_BODY_BYTES and no further, whatever the request declares.
    const read = await readJson(c.req.raw, MAX_BODY_BYTES)
    if (!read.ok && read.reason === 'too_large')
      return fail(c, 413, 'body_too_large', `Request body over ${MAX_BODY_BYTES} bytes`)
    const body = read.ok ? read.value : undefined
    const text = typeof body === 'object' && body !== null ? (body as { text?: unknown }).text : undefined
    if (typeof text !== 'string') return fail(c, 400, 'invalid_body', 'Expected a JSON body { "text": "…" }')
    if (text.trim() === '') return fail(c, 400, 'empty_message', 'The message is empty')
    if (text.length > MAX_USER_TEXT) {
      return fail(
        c,
        400,
        'message_too_long',
        `The message is ${text.length} characters long; the limit is ${MAX_USER_TEXT}`,
      )
    }
    try {
      return c.json({ id: (await agent.post(conversation, text.trim())).id } satisfies CreatedBody, 202)
    } catch (error) {
      if (error instanceof LimitExceeded) return tooMany(c, error)
      throw error
    }
  })

  app.get('/api/conversations/:id/events', async (c) => {
    const conversation = await own(c, c.req.param('id'))
    if (!conversation) return fail(c, 404, NOT_FOUND.code, NOT_FOUND.message)
    const release = chatStreams.take(conversation.userId)
    if (!release)
      return tooMany(
        c,
        new LimitExceeded(
          'too_many_streams',
          `Too many chat streams: at most ${chatStreams.max} per user; close a tab and try again`,
          10,
        ),
      )
    return streamSSE(c, async (stream) => {
      stream.onAbort(release)
      let chain = Promise.resolve()
      const write = (data: unknown) => {
        chain = chain.then(() => stream.writeSSE({ data: JSON.stringify(data) })).catch(() => {})
      }
      // A busy event delivered while the first answer was looked up is newer than that answer.
      let busySeen = false
      const unsubscribe = events.subscribe(conversation.id, (event) => {
        if (event.type === 'busy') busySeen = true
        write(event)
      })
      stream.onAbort(unsubscribe)
      // Shared mode: the events of a turn on any instance reach this one before the stream says busy or not.
      const [busy] = await Promise.all([agent.busyAnywhere(conversation.id), events.watched(conversation.id)])
      if (!busySeen) write({ type: 'busy', busy } satisfies ChatEvent)
      while (!stream.aborted && !stream.closed) {
        await stream.sleep(keepAliveMs)
        chain = chain
          .then(() => stream.write(': keep-alive\n\n'))
          .then(
            () => {},
            () => {},
          )
      }
      unsubscribe()
      release()
    })
  })

  grantRoutes(app, { store, now, own })

  app.all('/api/*', (c) => fail(c, 404, 'not_found', 'No such API route'))
  app.all('/toolmark/*', (c) => fail(c, 404, 'not_found', 'No such route'))

  app.all('*', (c) => (deps.fallback ? deps.fallback(c.req.raw) : fail(c, 404, 'not_found', 'Not found')))
  app.notFound((c) => fail(c, 404, 'not_found', 'Not found'))
  app.onError((error, c) => {
    ;(deps.log ?? console.error)(`[http] ${c.req.method} failed: ${failureForLog(error)}`)
    if (isStoreUnavailable(error)) return storeUnavailable()
    return c.json(internalError(error), 500)
  })
  return app
}
