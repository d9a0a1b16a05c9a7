import { createHmac, timingSafeEqual } from 'node:crypto'

/** The session cookie's name. */
export const SESSION_COOKIE = 'tm_session'

/** Signs a session id: `<id>.<base64url HMAC-SHA256(secret, id)>`. */
export function signSession(id: string, secret: string): string {
  return `${id}.${createHmac('sha256', secret).update(id).digest('base64url')}`
}

/** The session id inside a signed cookie value, or undefined when it is missing, malformed or forged. */
export function verifySession(value: string | undefined, secret: string): string | undefined {
  if (!value || value.length > 512) return undefined
  const dot = value.lastIndexOf('.')
  if (dot <= 0) return undefined
  const id = value.slice(0, dot)
  const expected = Buffer.from(signSession(id, secret).slice(dot + 1))
  const given = Buffer.from(value.slice(dot + 1))
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined
}

/** Reads one cookie from a raw `Cookie` header (first occurrence wins), URL-decoded. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue
    try {
      return decodeURIComponent(part.slice(eq + 1).trim())
    } catch {
      return undefined
    }
  }
  return undefined
}
