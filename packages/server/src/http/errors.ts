import type { Context, ErrorHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ErrorBody } from '../shared/contract.ts'
import type { LimitExceeded } from '../shared/limits.ts'
import { escapeForLog } from '../shared/log.ts'
import { isStoreUnavailable, storeUnavailable } from './health.ts'

/** A JSON error answer: `{ error: { code, message } }` with `status`. */
export const fail = (c: Context, status: ContentfulStatusCode, code: string, message: string) =>
  c.json({ error: { code, message } } satisfies ErrorBody, status)

/** 429 for a user over one of the server's caps, with `Retry-After` when the cap says when to retry. */
export const tooMany = (c: Context, error: LimitExceeded) => {
  if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter))
  return fail(c, 429, error.code, error.message)
}

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

/**
 * A Hono error handler: logs `[prefix] METHOD failed: …` (masked) and answers `503 store_unavailable`
 * when the database is down, else `500 internal` (JSON).
 */
export function failedRequest(prefix: string, log: ((line: string) => void) | undefined): ErrorHandler {
  return (error, c) => {
    ;(log ?? console.error)(`[${prefix}] ${c.req.method} failed: ${failureForLog(error)}`)
    if (isStoreUnavailable(error)) return storeUnavailable()
    return c.json(internalError(error), 500)
  }
}
