import { listeners } from './listeners.ts'
import { giveWay, isTerminal, type Labelled, labelOf, MAX_BUFFERED_MESSAGES } from './outgoing.ts'
import type { BridgeTransport, TransportState } from './transport.ts'

/** Frames longer than this many UTF-16 code units are dropped unparsed (docs/protocol/v1.md, Inbound limits). */
export const MAX_FRAME_LENGTH = 4 * 1048576
/** Outgoing messages kept while disconnected. */
export { MAX_BUFFERED_MESSAGES }
/** First reconnect delay; each failed attempt doubles it, up to `maxDelayMs`. */
export const INITIAL_RECONNECT_DELAY_MS = 500

/** The part of a WebSocket this transport uses: the browser's `WebSocket` and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  addEventListener(type: 'open', listener: () => void): void
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void
  addEventListener(type: 'error', listener: (event: unknown) => void): void
}

/** A WebSocket constructor (`globalThis.WebSocket`, or `WebSocket` from the `ws` package in Node). */
export type WebSocketConstructorLike = new (url: string, protocols?: string | string[]) => WebSocketLike

/** Options of {@link websocketTransport}. */
export interface WebSocketTransportOptions {
  /** `wss://` in production. The server must authenticate the socket before relaying anything. */
  url: string | URL
  protocols?: string | string[]
  /** Upper bound of the reconnect delay (500 ms, doubling). Default 30000. */
  maxDelayMs?: number
  /** Close codes after which the transport stops instead of reconnecting (e.g. an auth failure code). */
  terminalCloseCodes?: readonly number[]
  /**
   * Called on every open, before buffered messages are flushed; may be async (e.g. send a token and
   * wait for the server's answer). Frames arriving before it settles go to `onOpen`'s own listeners
   * only, not to the bridge. If it throws or rejects, the transport closes and stops reconnecting.
   */
  onOpen?: (socket: WebSocketLike) => void | Promise<void>
  /** WebSocket implementation; defaults to `globalThis.WebSocket`. */
  WebSocket?: WebSocketConstructorLike
}

/** The transport returned by {@link websocketTransport}. */
export interface WebSocketTransport extends BridgeTransport {
  onError(handler: (error: unknown) => void): () => void
  onState(handler: (state: TransportState) => void): () => void
  close(): void
}

interface Outgoing extends Labelled {
  data: string
}

const OPEN = 1

/**
 * Bridge transport over one WebSocket carrying JSON text frames, reconnecting on its own.
 *
 * - Reconnects with exponential backoff (500 ms, doubling, capped by `maxDelayMs`; reset after a
 *   successful open) until a close whose code is in `terminalCloseCodes`, a rejecting `onOpen`, or
 *   `close()`. Stopping for the first two reasons is reported through `onError`.
 * - `send` serializes at once (throws if the value is not JSON-serializable, or after the transport
 *   stopped). While disconnected, up to 100 messages are buffered and flushed in order on the next
 *   open. When the buffer is full, a superseded `manifest`/`changed` goes first (an older manifest
 *   is superseded by a later manifest; an older `changed` by a later manifest or changed), then the
 *   oldest other non-terminal message (possibly the incoming one), and only then the oldest
 *   `result`/`confirmed`, which is reported through `onError` because it cannot be recovered.
 *   A message handed to an open socket that then drops is lost (WebSocket gives no delivery ack).
 * - A reconnect does NOT re-send the manifest: the bridge sends one on attach and on every registry
 *   revision only. The server keeps the latest manifest it received per clientId; a server that
 *   lost it should treat the page as having no manifest until the next revision.
 * - Inbound: binary frames, frames longer than 4 × 1048576 UTF-16 code units (checked before
 *   parsing) and non-JSON text are dropped silently; everything else is parsed exactly once and
 *   handed to the bridge unvalidated.
 *
 * Throws a `TypeError` at construction when no WebSocket implementation is available, and
 * whatever the WebSocket constructor throws for an invalid `url`.
 */
export function websocketTransport(options: WebSocketTransportOptions): WebSocketTransport {
  const WebSocketImpl =
    options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructorLike }).WebSocket
  if (typeof WebSocketImpl !== 'function') {
    throw new TypeError('websocketTransport: no WebSocket implementation; pass the `WebSocket` option')
  }
  const url = String(options.url)
  const maxDelayMs = options.maxDelayMs ?? 30000
  if (!Number.isFinite(maxDelayMs) || maxDelayMs < 0) {
    throw new TypeError('websocketTransport: maxDelayMs must be a finite number >= 0')
  }
  const terminalCodes = new Set(options.terminalCloseCodes ?? [])
  const messageHandlers = listeners<unknown>()
  const errors = listeners<unknown>()
  const states = listeners<TransportState>()
  let state: TransportState = 'connecting'
  const setState = (next: TransportState): void => {
    if (state === next) return
    state = next
    states.emit(next, ignore)
  }
  const buffer: Outgoing[] = []
  let socket: WebSocketLike | undefined
  let ready = false
  let stopped: Error | undefined
  const firstDelay = Math.min(INITIAL_RECONNECT_DELAY_MS, maxDelayMs)
  let delay = firstDelay
  let timer: ReturnType<typeof setTimeout> | undefined

  // An error handler that throws must not break the socket's event dispatch: its error is dropped.
  const report = (error: unknown): void => errors.emit(error, ignore)

  const stop = (reason: Error, notify: boolean): void => {
    if (stopped) return
    stopped = reason
    ready = false
    setState('closed')
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    const current = socket
    socket = undefined
    if (current && current.readyState <= OPEN) current.close(1000)
    const lost = buffer.length
    buffer.length = 0
    messageHandlers.clear()
    if (notify) {
      report(
        lost > 0
          ? new Error(`${reason.message}; ${lost} buffered message(s) dropped`, { cause: reason })
          : reason,
      )
    }
    errors.clear()
  }

  const flush = (ws: WebSocketLike): void => {
    while (buffer.length > 0 && socket === ws && ws.readyState === OPEN) {
      ws.send(buffer.shift()!.data)
    }
  }

  const connect = (): void => {
    timer = undefined
    const ws = new WebSocketImpl(url, options.protocols)
    socket = ws

    ws.addEventListener('open', () => {
      if (socket !== ws) return
      let pending: void | Promise<void>
      try {
        pending = options.onOpen?.(ws)
      } catch (error) {
        stop(new Error('websocketTransport: onOpen failed', { cause: error }), true)
        return
      }
      Promise.resolve(pending).then(
        () => {
          if (socket !== ws || ws.readyState !== OPEN) return
          ready = true
          setState('open')
          delay = firstDelay
          flush(ws)
        },
        (error: unknown) => stop(new Error('websocketTransport: onOpen rejected', { cause: error }), true),
      )
    })

    ws.addEventListener('message', (event) => {
      if (socket !== ws || !ready) return
      const data = event.data
      if (typeof data !== 'string' || data.length > MAX_FRAME_LENGTH) return
      let message: unknown
      try {
        message = JSON.parse(data)
      } catch {
        return
      }
      messageHandlers.emit(message, report)
    })

    ws.addEventListener('error', (event) => {
      if (socket === ws) report(new Error('websocketTransport: socket error', { cause: event }))
    })

    ws.addEventListener('close', (event) => {
      if (socket !== ws) return
      socket = undefined
      ready = false
      setState('connecting')
      const code = event.code ?? 1006
      if (terminalCodes.has(code)) {
        const reason = event.reason ? `: ${event.reason}` : ''
        stop(new Error(`websocketTransport: closed with terminal code ${code}${reason}`), true)
        return
      }
      timer = setTimeout(reconnect, delay)
      delay = Math.min(delay * 2, maxDelayMs)
    })
  }

  const reconnect = (): void => {
    if (stopped) return
    try {
      connect()
    } catch (error) {
      // The URL was valid at construction; treat a throwing constructor as a failed attempt.
      socket = undefined
      report(error)
      timer = setTimeout(reconnect, delay)
      delay = Math.min(delay * 2, maxDelayMs)
    }
  }

  const enqueue = (item: Outgoing): void => {
    if (buffer.length < MAX_BUFFERED_MESSAGES) {
      buffer.push(item)
      return
    }
    const { index } = giveWay(buffer, item)
    if (index < 0) return // the incoming message is the oldest non-terminal one
    const [evicted] = buffer.splice(index, 1) as [Outgoing]
    buffer.push(item)
    if (!isTerminal(evicted.kind)) return
    report(
      new Error(
        `websocketTransport: outgoing buffer full (${MAX_BUFFERED_MESSAGES} messages while disconnected); dropped a buffered ${evicted.label}`,
      ),
    )
  }

  connect()

  return {
    send(message) {
      if (stopped) throw new Error('websocketTransport: transport stopped', { cause: stopped })
      const data = JSON.stringify(message)
      if (typeof data !== 'string')
        throw new TypeError('websocketTransport: message is not JSON-serializable')
      const current = socket
      if (ready && current && current.readyState === OPEN && buffer.length === 0) {
        current.send(data)
        return
      }
      enqueue(describe(message, data))
    },
    onMessage: messageHandlers.add,
    onError: errors.add,
    onState(handler) {
      handler(state)
      return states.add(handler)
    },
    close() {
      stop(new Error('websocketTransport: closed'), false)
    },
  }
}

function ignore(): void {}

function describe(message: unknown, data: string): Outgoing {
  return { data, ...labelOf(message) }
}
