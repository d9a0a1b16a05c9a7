import type { ErrorBody } from '../shared/contract.ts'
import { escapeForLog } from '../shared/log.ts'
import { StoreUnavailableError } from '../store/store.ts'

/** Liveness: `200 {"status":"ok"}` while the process serves requests. */
export const HEALTH_PATH = '/toolmark/health'
/**
 * Readiness: `200 {"status":"ready"}` when the store (and the coordinator, in shared mode) answer and the
 * instance is not draining; else `503 not_ready`, so a load balancer sends it no new requests.
 */
export const READY_PATH = '/toolmark/ready'

/** Seconds a client is told to wait (`Retry-After`) when the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5

/** The answer for a request that needed the database while it could not be reached. */
export const STORE_UNAVAILABLE = {
  code: 'store_unavailable',
  message: 'The database is unavailable; try again shortly',
} as const

/** True for the error a store throws when its database cannot be reached (by name: one copy or another of the class). */
export function isStoreUnavailable(error: unknown): boolean {
  return (
    error instanceof StoreUnavailableError ||
    (error instanceof Error && error.name === 'StoreUnavailableError')
  )
}

/** `503 store_unavailable` with `Retry-After`, as JSON like every error answer. */
export function storeUnavailable(): Response {
  return Response.json({ error: STORE_UNAVAILABLE } satisfies ErrorBody, {
    status: 503,
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  })
}

/**
 * `503 not_ready` with `Retry-After`: the instance is closing; another one (or this one restarted) serves.
 * It asks to close the connection: a Node server that is closing waits for a kept-alive connection until it
 * times out (5 s by default), and a client that reconnects its event stream would keep one alive.
 */
export function shuttingDown(): Response {
  return Response.json(
    { error: { code: 'not_ready', message: 'This instance is shutting down' } } satisfies ErrorBody,
    { status: 503, headers: { 'retry-after': '1', connection: 'close' } },
  )
}

/** What the readiness check asks. */
export interface Readiness {
  /** Each check rejects when its part is not ready (the store's ping, the coordinator's). */
  checks: ReadonlyArray<() => Promise<void>>
  /** True once the instance stopped taking new work (it is closing). */
  draining: () => boolean
  log: (line: string) => void
}

/**
 * Answers `GET`/`HEAD` on {@link HEALTH_PATH} and {@link READY_PATH}, or returns undefined for any other
 * request. They are answered before the Host/Origin check (a load balancer probes with its own `Host`):
 * neither reads nor changes anything a user owns.
 */
export async function health(request: Request, readiness: Readiness): Promise<Response | undefined> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
  const path = new URL(request.url).pathname
  if (path !== HEALTH_PATH && path !== READY_PATH) return undefined
  if (path === HEALTH_PATH) return Response.json({ status: 'ok' })
  if (readiness.draining())
    return Response.json(
      { error: { code: 'not_ready', message: 'This instance is draining' } } satisfies ErrorBody,
      {
        status: 503,
      },
    )
  try {
    await Promise.all(readiness.checks.map((check) => check()))
    return Response.json({ status: 'ready' })
  } catch (error) {
    readiness.log(`[ready] not ready: ${escapeForLog(String(error))}`)
    const message = isStoreUnavailable(error)
      ? STORE_UNAVAILABLE.message
      : 'A shared service of this instance is unavailable'
    return Response.json({ error: { code: 'not_ready', message } } satisfies ErrorBody, { status: 503 })
  }
}
