import { listeners } from './listeners.ts'
import type { BridgeTransport } from './transport.ts'

/** The agent end of an in-page channel: talks to the page's bridge in the same JavaScript realm. */
export interface InPageAgent {
  /**
   * Deliver one agent→page message to the page's bridge, asynchronously (on a microtask). The
   * object is passed as is; the bridge copies and validates it. Throws after `close()`.
   */
  send(message: unknown): void
  /** Receive page→agent messages (delivered on a microtask, as the bridge sent them). Returns an unsubscribe function. */
  onMessage(handler: (message: unknown) => void): () => void
  /** Close both ends: nothing queued or sent afterwards is delivered. Idempotent. */
  close(): void
}

/** The page end (give it to `bridge({ transport })`) and the agent end of an in-page channel. */
export interface InPageChannel {
  transport: BridgeTransport & Required<Pick<BridgeTransport, 'onError'>> & { close(): void }
  agent: InPageAgent
}

const RESOLVED = Promise.resolve()

/**
 * Runs `fn` on a microtask, like `queueMicrotask` but without the async resource Node allocates for
 * each of those. A throw still surfaces as an uncaught error, not as an unhandled rejection.
 */
const onMicrotask = (fn: () => void): void => {
  RESOLVED.then(() => {
    try {
      fn()
    } catch (error) {
      queueMicrotask(() => {
        throw error
      })
    }
  })
}

/**
 * A linked pair of endpoints in one JavaScript realm, for client-side agent loops and tests.
 *
 * Both ends share the page's realm, so this is NOT a security boundary: anything that can reach the
 * `agent` object can call every tool the bridge exposes. Never relay messages from another origin
 * or from a server into it without the checks a real transport does.
 *
 * Delivery is asynchronous in both directions (one microtask per message, in order), so a handler
 * never runs inside the caller's `send`. A page-side handler that throws is reported through the
 * transport's `onError`; an agent handler that throws surfaces as an uncaught error, like any
 * event listener.
 */
export function createInPageChannel(): InPageChannel {
  const pageHandlers = listeners<unknown>()
  const agentHandlers = listeners<unknown>()
  const errors = listeners<unknown>()
  const reportError = (error: unknown): void => errors.emit(error)
  let closed = false

  const close = (): void => {
    if (closed) return
    closed = true
    pageHandlers.clear()
    agentHandlers.clear()
    errors.clear()
  }

  const transport: InPageChannel['transport'] = {
    send(message) {
      if (closed) throw new Error('Toolmark in-page channel is closed')
      // An agent handler that throws is the agent's own bug: it surfaces as an uncaught error.
      onMicrotask(() => {
        if (!closed) agentHandlers.emit(message)
      })
    },
    onMessage: pageHandlers.add,
    onError: errors.add,
    close,
  }

  const agent: InPageAgent = {
    send(message) {
      if (closed) throw new Error('Toolmark in-page channel is closed')
      // A page handler that throws is reported through the transport's onError.
      onMicrotask(() => {
        if (!closed) pageHandlers.emit(message, reportError)
      })
    },
    onMessage: agentHandlers.add,
    close,
  }

  return { transport, agent }
}
