import type { Context } from 'hono'
import { getSignedCookie, setSignedCookie } from 'hono/cookie'
import { parseSigned } from 'hono/utils/cookie'

/** The session cookie's name. */
export const SESSION_COOKIE = 'tm_session'

/**
 * Sets the session cookie: `<session id>.<base64 HMAC-SHA256(secret, id)>` (Hono's signed cookie,
 * URL-encoded), `HttpOnly`, `SameSite=Lax`, `Path=/`, `Max-Age` = `maxAgeSeconds`.
 */
export function setSessionCookie(
  c: Context,
  sessionId: string,
  secret: string,
  maxAgeSeconds: number,
): Promise<void> {
  return setSignedCookie(c, SESSION_COOKIE, sessionId, secret, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    maxAge: maxAgeSeconds,
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
