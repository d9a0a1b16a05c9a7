import { listeners } from './listeners.ts'
import { sameOriginUrl } from './same-origin.ts'
import type { BridgeTransport } from './transport.ts'

/** The part of a Laravel Echo channel this transport uses (`echo.private(name)`'s return value). */
export interface EchoChannelLike {
  listen(event: string, callback: (payload: unknown) => void): unknown
  stopListening?(event: string, callback?: (payload: unknown) => void): unknown
  /** Subscription errors (e.g. the channel authorization was refused). */
  error?(callback: (status: unknown) => void): unknown
  /** Runs `callback` when the subscription succeeds (Laravel Echo's Pusher channels). */
  subscribed?(callback: () => void): unknown
  /** The underlying Pusher channel: `subscribed` is true once it is (a channel Echo had already joined). */
  subscription?: { subscribed?: boolean }
}

/** The part of a Laravel Echo instance this transport uses; a real `Echo` fits without a cast. */
export interface EchoLike {
  private(channel: string): EchoChannelLike
  leaveChannel?(channel: string): void
  leave?(channel: string): void
}

/** Options of {@link echoTransport}. */
export interface EchoTransportOptions {
  /** Your Laravel Echo instance. */
  echo: EchoLike
  /** Private channel name without the `private-` prefix, e.g. `toolmark.${userId}.${conversationId}`. */
  channel: string
  /** The server's broadcast event name, in Echo's notation. Default `'.toolmark.message'`. */
  event?: string
  /** Same-origin URL the page POSTs its messages to. */
  postUrl: string
  /** Extra request headers, read on every send; must supply Laravel's CSRF header (see {@link xsrfToken}). */
  headers?: () => Record<string, string>
  /**
   * The page URL `postUrl` is resolved and checked against. Default `globalThis.location?.href`;
   * without either, `postUrl` must be an absolute http(s) URL.
   */
  baseUrl?: string
}

/** The transport returned by {@link echoTransport}. */
export interface EchoTransport extends BridgeTransport {
  onError(handler: (error: unknown) => void): () => void
  close(): void
}

const DEFAULT_EVENT = '.toolmark.message'

/** The longest a send waits for the channel subscription before it goes anyway. */
const SUBSCRIBE_WAIT_MS = 3000

/**
 * Bridge transport over Laravel Echo (server → page) and HTTP POST (page → server).
 *
 * Inbound: subscribes to the private channel (`echo.private(channel)`) and listens to the server's
 * event only (default `.toolmark.message`), never to client whispers: event names that resolve to
 * `client-*` or `pusher:*` are refused at construction. A payload that is an object carrying
 * `protocol` is the message; otherwise its `message` property is, when it has one; otherwise the
 * payload itself. Whatever it is goes to the bridge, which drops anything that is not a valid
 * message (a JSON string included) with the `invalid_message` event. Subscription errors (refused
 * channel authorization) reach `onError`.
 *
 * Outbound: once the channel subscription succeeded (it failed, or 3 s passed: a message sent earlier could be
 * answered before the page listens), `fetch(postUrl, { method: 'POST', credentials: 'same-origin', redirect: 'error' })` with
 * JSON, `Accept: application/json` and `X-Requested-With: XMLHttpRequest` headers plus `headers()`
 * (read on every send). `send` rejects on a network failure, a redirect or a non-2xx status.
 *
 * `close()` stops listening and leaves the private channel (`echo.leaveChannel('private-' + channel)`,
 * else `echo.leave(channel)`), so the transport should own that channel subscription.
 *
 * Throws a `TypeError` at construction when `postUrl` is not same-origin with `baseUrl` (default
 * `location.href`), is not http(s), is relative with no base, or carries credentials; and when
 * `channel` or `event` is empty or `event` names a whisper or a Pusher-internal event.
 */
export function echoTransport(options: EchoTransportOptions): EchoTransport {
  const { echo, channel, headers } = options
  const event = options.event ?? DEFAULT_EVENT
  if (typeof channel !== 'string' || channel === '') {
    throw new TypeError('echoTransport: `channel` must be a non-empty string')
  }
  const bare = event.replace(/^[.\\]/, '')
  if (bare === '' || /^(client-|pusher:|pusher_internal:)/.test(bare)) {
    throw new TypeError(`echoTransport: event ${JSON.stringify(event)} is not a server broadcast event name`)
  }
  const postUrl = sameOriginUrl(
    'echoTransport: postUrl',
    options.postUrl,
    options.baseUrl ?? globalThis.location?.href,
  )

  const messageHandlers = listeners<unknown>()
  const errors = listeners<unknown>()
  let closed = false

  const report = (error: unknown): void => errors.emit(error)

  const listener = (payload: unknown): void => {
    if (!closed) messageHandlers.emit(unwrap(payload), report)
  }

  const subscription = echo.private(channel)
  subscription.listen(event, listener)
  subscription.error?.((status: unknown) => {
    if (!closed) {
      report(
        new Error(`echoTransport: subscription to private channel "${channel}" failed`, { cause: status }),
      )
    }
  })

  // Sends wait until the page can hear the answer: the server may answer the first manifest at once on the channel
  // (a pending card asked again), and a broadcast made before the subscription succeeded is lost.
  const listening = new Promise<void>((resolve) => {
    if (typeof subscription.subscribed !== 'function' || subscription.subscription?.subscribed === true)
      return resolve()
    const timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS)
    const done = (): void => {
      clearTimeout(timer)
      resolve()
    }
    subscription.subscribed(done)
    subscription.error?.(done)
  })

  return {
    async send(message) {
      if (closed) throw new Error('echoTransport: transport closed')
      await listening
      if (closed) throw new Error('echoTransport: transport closed')
      const body = JSON.stringify(message)
      const response = await fetch(postUrl, {
        method: 'POST',
        credentials: 'same-origin',
        redirect: 'error',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'X-Requested-With': 'XMLHttpRequest',
          ...headers?.(),
        },
        body,
      })
      // Release the connection: the answer's body is not used.
      await response.body?.cancel().catch(() => {})
      if (!response.ok) {
        throw new Error(`echoTransport: POST ${postUrl} answered HTTP ${response.status}`)
      }
    },
    onMessage: messageHandlers.add,
    onError: errors.add,
    close() {
      if (closed) return
      closed = true
      messageHandlers.clear()
      errors.clear()
      subscription.stopListening?.(event, listener)
      if (typeof echo.leaveChannel === 'function') echo.leaveChannel(`private-${channel}`)
      else echo.leave?.(channel)
    },
  }
}

/**
 * Laravel's CSRF token for the `X-XSRF-TOKEN` header: the URL-decoded value of the `XSRF-TOKEN`
 * cookie. Returns `''` when there is no such cookie, no `document`, or the value is malformed.
 *
 * @example echoTransport({ ..., headers: () => ({ 'X-XSRF-TOKEN': xsrfToken() }) })
 */
export function xsrfToken(
  cookieName = 'XSRF-TOKEN',
  cookies: string | undefined = globalThis.document?.cookie,
): string {
  if (!cookies) return ''
  const name = cookieName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const raw = new RegExp(`(?:^|;\\s*)${name}=([^;]*)`).exec(cookies)?.[1]
  if (raw === undefined) return ''
  try {
    return decodeURIComponent(raw)
  } catch {
    return ''
  }
}

/**
 * The protocol message in a broadcast: the payload itself, or its `message` property. It is handed
 * to the bridge unvalidated, whatever it is, so a malformed one (a JSON string, say) is dropped there
 * with the `invalid_message` event rather than silently.
 */
function unwrap(payload: unknown): unknown {
  if (isObject(payload) && !Object.hasOwn(payload, 'protocol') && Object.hasOwn(payload, 'message')) {
    return (payload as { message: unknown }).message
  }
  return payload
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
