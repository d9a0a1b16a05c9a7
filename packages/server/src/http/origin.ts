import type { MiddlewareHandler } from 'hono'
import type { ErrorBody } from '../shared/contract.ts'
import { fail } from './errors.ts'

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

/** The answer for a request {@link checkOrigin} refused. */
export const ORIGIN_REFUSED: Readonly<Record<'host' | 'origin', ErrorBody['error']>> = {
  host: {
    code: 'host_not_allowed',
    message: 'This server answers only on loopback names and the origins listed in ALLOWED_ORIGINS',
  },
  origin: { code: 'cross_origin', message: 'Cross-origin request refused' },
}

/** The problem {@link checkOrigin} finds with a Fetch request's `Host` and `Origin`, if any. */
export function originProblem(request: Request, allowedOrigins: readonly string[] = []): OriginProblem {
  return checkOrigin(hostOf(request), request.headers.get('origin') ?? undefined, allowedOrigins)
}

/**
 * Middleware that answers `403` (`host_not_allowed` or `cross_origin`, JSON) for a request
 * {@link checkOrigin} refuses, before any other work; any other request goes on.
 */
export function originCheck(allowedOrigins: readonly string[] = []): MiddlewareHandler {
  return async (c, next) => {
    const problem = originProblem(c.req.raw, allowedOrigins)
    if (problem) return fail(c, 403, ORIGIN_REFUSED[problem].code, ORIGIN_REFUSED[problem].message)
    await next()
  }
}
