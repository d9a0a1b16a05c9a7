import type { Context } from 'hono'
import { getSignedCookie, setSignedCookie } from 'hono/cookie'
import { parseSigned } from 'hono/utils/cookie'

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
