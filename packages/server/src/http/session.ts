import type { Context, MiddlewareHandler } from 'hono'
import { getSignedCookie, setSignedCookie } from 'hono/cookie'
import { parseSigned } from 'hono/utils/cookie'
import type { Session, Store } from '../store/store.ts'
import { AuthenticateFailed } from './errors.ts'

/** The session cookie's name. */
export const SESSION_COOKIE = 'tm_session'

/** When the session cookie gets the `Secure` attribute (sent back over HTTPS only). */
export interface SessionCookieOptions {
  /**
   * `true`: always `Secure`; `false`: never. Default: from the request's scheme, `Secure` when the
   * request came over HTTPS (see `trustProxy`).
   */
  secure?: boolean
  /**
   * The server sits behind a proxy that sets `X-Forwarded-Proto` (and drops one sent by the client):
   * its first value is the scheme the browser used. Default false: the header is ignored, and the
   * request URL's scheme decides.
   */
  trustProxy?: boolean
}

/**
 * Whether the browser reached us over HTTPS: the request URL is `https:`; with `trustProxy`, the
 * first value of `X-Forwarded-Proto` decides when the proxy sent one.
 */
export function isHttps(request: Request, options: SessionCookieOptions = {}): boolean {
  const forwarded = options.trustProxy ? request.headers.get('x-forwarded-proto') : null
  if (forwarded) return forwarded.split(',')[0]!.trim().toLowerCase() === 'https'
  return URL.canParse(request.url) && new URL(request.url).protocol === 'https:'
}

/**
 * Sets the session cookie: `<session id>.<base64 HMAC-SHA256(secret, id)>` (Hono's signed cookie,
 * URL-encoded), `HttpOnly`, `SameSite=Lax`, `Path=/`, `Max-Age` = `maxAgeSeconds`, and `Secure`
 * per `options` (by default when the request came over HTTPS).
 */
export function setSessionCookie(
  c: Context,
  sessionId: string,
  secret: string,
  maxAgeSeconds: number,
  options: SessionCookieOptions = {},
): Promise<void> {
  return setSignedCookie(c, SESSION_COOKIE, sessionId, secret, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    maxAge: maxAgeSeconds,
    secure: options.secure ?? isHttps(c.req.raw, options),
  })
}

/** The session id of the request's signed cookie, or undefined when it is missing, malformed or forged. */
export async function readSessionCookie(c: Context, secret: string): Promise<string | undefined> {
  return validId(await getSignedCookie(c, secret, SESSION_COOKIE))
}

/**
 * The same for a raw `Cookie` header (the WebSocket upgrade has no Hono context): the first
 * `tm_session` wins, and a value whose signature does not verify counts as no session.
 */
export async function sessionIdFromHeader(
  header: string | undefined,
  secret: string,
): Promise<string | undefined> {
  if (!header) return undefined
  return validId((await parseSigned(header, secret, SESSION_COOKIE))[SESSION_COOKIE])
}

const validId = (value: string | false | undefined): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

/**
 * Maps a request to the app's user: a stable, non-empty id (from a session cookie, Auth.js, a header
 * set by the app's middleware), or undefined when nobody is signed in.
 */
export type Authenticate = (request: Request) => string | undefined | Promise<string | undefined>

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

/** A session's last use is written at most this often (it moves the sliding expiry). */
const TOUCH_EVERY_MS = 60_000

/** The request variables {@link Sessions.middleware} sets: the demo session (if any) and the user. */
export type SessionEnv = { Variables: { session: Session | undefined; userId: string | undefined } }

/** What {@link Sessions} is built from. */
export interface SessionsDeps {
  store: Store
  /** HMAC key of the session cookie (read from the store on first use, so it is a promise). */
  secret: () => Promise<string>
  /** The app's own sign-in. When set, the demo session cookie is neither read nor issued. */
  authenticate?: Authenticate | undefined
  /** Sliding session lifetime in milliseconds. Default 7 days. */
  ttlMs?: number | undefined
  /** Most sessions kept. Default 10 000. */
  maxSessions?: number | undefined
  /** When the session cookie is `Secure`. Default: when the request came over HTTPS. */
  cookie?: SessionCookieOptions | undefined
  /** Time source (tests). Default `Date.now`. */
  now?: (() => number) | undefined
}

/**
 * The one way the server finds a request's user: the app's `authenticate`, else the demo's signed
 * session cookie (HttpOnly, SameSite=Lax, sliding TTL, bounded table; created only by
 * {@link Sessions.owner}). Every transport (the API, the bridge's HTTP streams, the WebSocket, the
 * AG-UI and UI-message endpoints) asks it.
 */
export class Sessions {
  readonly #deps: SessionsDeps
  readonly #ttl: number
  readonly #now: () => number

  constructor(deps: SessionsDeps) {
    this.#deps = deps
    this.#ttl = deps.ttlMs ?? 7 * 86_400_000
    this.#now = deps.now ?? Date.now
  }

  /** The request's user (`authenticate`, else the live session of its cookie), or undefined. */
  userOf = async (request: Request): Promise<string | undefined> => {
    const { authenticate } = this.#deps
    if (authenticate) return userOf(authenticate, request)
    return (await this.#live(request)).session?.userId
  }

  /** The session the request's cookie names, unless it is missing, forged or expired; and when it was read. */
  async #live(request: Request): Promise<{ session: Session | undefined; at: number }> {
    const id = await sessionIdFromHeader(
      request.headers.get('cookie') ?? undefined,
      await this.#deps.secret(),
    )
    const session = id ? await this.#deps.store.getSession(id) : undefined
    const at = this.#now()
    // An expired session counts as none; it is pruned on the next create.
    return { session: session && session.lastSeenAt + this.#ttl > at ? session : undefined, at }
  }

  /**
   * Middleware that sets `session` and `userId` for the routes after it. A demo session is read, never
   * created here (a favicon or an `<img>` leaves no rows); its last use is written (and its cookie sent
   * again) at most once a minute.
   */
  middleware(): MiddlewareHandler<SessionEnv> {
    return async (c, next) => {
      const { authenticate } = this.#deps
      if (authenticate) {
        c.set('session', undefined)
        c.set('userId', await userOf(authenticate, c.req.raw))
        return next()
      }
      let { session, at } = await this.#live(c.req.raw)
      if (session && at - session.lastSeenAt >= TOUCH_EVERY_MS) {
        await this.#deps.store.touchSession(session.id, at)
        session = { ...session, lastSeenAt: at }
        await this.#issue(c, session)
      }
      c.set('session', session)
      c.set('userId', session?.userId)
      await next()
    }
  }

  /**
   * The user a new conversation belongs to: `authenticate`'s (recorded in the store), else the
   * request's demo session's, started now (with its cookie) when it has none. Undefined: nobody is
   * signed in.
   */
  async owner(c: Context<SessionEnv>): Promise<string | undefined> {
    const { store, authenticate } = this.#deps
    if (authenticate) {
      const userId = c.get('userId')
      if (userId) await store.ensureUser(userId)
      return userId
    }
    let session = c.get('session')
    if (!session) {
      await store.pruneSessions(this.#now() - this.#ttl, (this.#deps.maxSessions ?? 10_000) - 1)
      session = await store.createSession((await store.createUser()).id)
      await this.#issue(c, session)
    }
    return session.userId
  }

  async #issue(c: Context, session: Session): Promise<void> {
    const secret = await this.#deps.secret()
    await setSessionCookie(c, session.id, secret, Math.floor(this.#ttl / 1000), this.#deps.cookie)
  }
}
