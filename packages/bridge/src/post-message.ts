import { listeners } from './listeners.ts'
import type { BridgeTransport } from './transport.ts'

/** Where outbound envelopes go: a `Window` (iframe `contentWindow`, `window.parent`, an opener). */
export interface PostMessageTarget {
  postMessage(message: unknown, targetOrigin: string): void
}

/** What inbound `message` events are read from (`window` by default). */
export interface PostMessageSource {
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void
}

/** Options of {@link postMessageTransport}. */
export interface PostMessageTransportOptions {
  /** The other window. Only events whose `source` is this exact object are accepted. */
  target: PostMessageTarget
  /** The other window's serialized origin (`scheme://host[:port]`); `'*'` is rejected. */
  targetOrigin: string
  /** Serialized origins accepted on inbound events; `'*'`, `'null'` and non-origins are rejected. */
  allowedOrigins: readonly string[]
  /** Whose `message` events are listened to. Defaults to `window`. */
  self?: PostMessageSource
  /**
   * Allow `target` to be this very window (or `self`). Refused by default: a window talking to itself
   * is no boundary, since any script on the page can post to it. Set it only when the other end lives in
   * another JavaScript world of the same window, such as a browser extension's content script.
   */
  sameWindow?: boolean
}

/** The envelope every message travels in. */
export interface PostMessageEnvelope {
  toolmark: 1
  message: unknown
}

/** The transport returned by {@link postMessageTransport}. */
export interface PostMessageTransport extends BridgeTransport {
  close(): void
}

/**
 * Bridge transport between two windows (iframes, popups, extension pages) over `postMessage`.
 *
 * Outbound: `target.postMessage({ toolmark: 1, message }, targetOrigin)`; `send` throws after
 * `close()` or when `target` is a closed window. Inbound: a `message` event on `self` is handed to
 * the bridge (as `event.data.message`) only when `event.source === target`, `event.origin` is an
 * exact member of `allowedOrigins`, and `event.data` is an object with `toolmark === 1` and an own
 * `message` property, and the event is trusted (dispatched by the browser for a real `postMessage`, not
 * by a script calling `dispatchEvent`); anything else is ignored silently.
 *
 * Throws a `TypeError` at construction when `targetOrigin` is `'*'` or not a serialized origin, when
 * `allowedOrigins` is empty or holds `'*'`, `'null'` or anything that is not a serialized origin
 * (`scheme://host[:port]` exactly as browsers report it: lowercase, no default port, no path or
 * trailing slash), when there is no `self` to listen on, or when `target` is this window itself
 * (`target === window` or `target === self`) without `sameWindow: true`.
 */
export function postMessageTransport(options: PostMessageTransportOptions): PostMessageTransport {
  const { target, targetOrigin } = options
  if (!target || typeof target.postMessage !== 'function') {
    throw new TypeError('postMessageTransport: `target` must be a window (or have postMessage)')
  }
  if (targetOrigin === '*') {
    throw new TypeError("postMessageTransport: targetOrigin '*' is not allowed; pass the exact origin")
  }
  assertOrigin(targetOrigin, 'targetOrigin')
  if (!Array.isArray(options.allowedOrigins) || options.allowedOrigins.length === 0) {
    throw new TypeError('postMessageTransport: allowedOrigins must list at least one origin')
  }
  for (const origin of options.allowedOrigins) {
    if (origin === '*' || origin === 'null') {
      throw new TypeError(`postMessageTransport: allowedOrigins may not contain '${origin}'`)
    }
    assertOrigin(origin, 'allowedOrigins')
  }
  const allowed = new Set<string>(options.allowedOrigins)
  const self = options.self ?? (globalThis as { window?: PostMessageSource }).window
  if (!self || typeof self.addEventListener !== 'function') {
    throw new TypeError('postMessageTransport: no window to listen on; pass `self`')
  }
  const win = (globalThis as { window?: unknown }).window
  if ((target === win || (target as unknown) === self) && options.sameWindow !== true) {
    throw new TypeError(
      'postMessageTransport: target is this window itself, which is no boundary (any script can post to it); pass sameWindow: true only for a browser extension content script',
    )
  }

  const handlers = listeners<unknown>()
  const errors = listeners<unknown>()
  const reportError = (error: unknown): void => errors.emit(error)
  let closed = false

  const listener = (event: MessageEvent): void => {
    // A script's own dispatchEvent(new MessageEvent(...)) can forge source and origin: never trust it.
    if (event.isTrusted === false) return
    if (event.source !== (target as unknown) || !allowed.has(event.origin)) return
    const data: unknown = event.data
    if (typeof data !== 'object' || data === null || (data as { toolmark?: unknown }).toolmark !== 1) return
    if (!Object.hasOwn(data, 'message')) return
    handlers.emit((data as { message: unknown }).message, reportError)
  }
  self.addEventListener('message', listener)

  return {
    send(message) {
      if (closed) throw new Error('postMessageTransport: transport closed')
      if ((target as { closed?: unknown }).closed === true) {
        throw new Error('postMessageTransport: target window is closed')
      }
      const envelope: PostMessageEnvelope = { toolmark: 1, message }
      target.postMessage(envelope, targetOrigin)
    },
    onMessage: handlers.add,
    onError: errors.add,
    close() {
      if (closed) return
      closed = true
      self.removeEventListener('message', listener)
      handlers.clear()
      errors.clear()
    },
  }
}

const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\\\s]+)$/
const SPECIAL = new Set(['http', 'https', 'ws', 'wss', 'ftp'])

/** Throws unless `value` is a serialized origin exactly as `MessageEvent.origin` reports it. */
function assertOrigin(value: unknown, what: string): void {
  if (!isSerializedOrigin(value)) {
    throw new TypeError(
      `postMessageTransport: ${what} must hold serialized origins like 'https://app.example.com' (scheme://host[:port], no path or trailing slash); got ${JSON.stringify(value)}`,
    )
  }
}

function isSerializedOrigin(value: unknown): boolean {
  if (typeof value !== 'string') return false
  const match = ORIGIN.exec(value)
  if (!match) return false
  // Other schemes (e.g. chrome-extension://<id>): lowercase host, optional port.
  if (!SPECIAL.has(match[1]!)) return /^[a-z0-9.-]+(?::\d{1,5})?$/.test(match[2]!)
  try {
    return new URL(value).origin === value
  } catch {
    return false
  }
}
