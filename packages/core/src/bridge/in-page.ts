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
  const pageHandlers = new Set<(message: unknown) => void>()
  const agentHandlers = new Set<(message: unknown) => void>()
  const errorHandlers = new Set<(error: unknown) => void>()
  let closed = false

  const deliver = (handlers: Set<(message: unknown) => void>, message: unknown, report: boolean): void => {
    queueMicrotask(() => {
      if (closed) return
      for (const handler of [...handlers]) {
        if (!report) {
          handler(message)
          continue
        }
        try {
          handler(message)
        } catch (error) {
          for (const onError of [...errorHandlers]) onError(error)
        }
      }
    })
  }

  const subscribe = <T>(set: Set<T>, handler: T): (() => void) => {
    set.add(handler)
    return () => {
      set.delete(handler)
    }
  }

  const close = (): void => {
    if (closed) return
    closed = true
    pageHandlers.clear()
    agentHandlers.clear()
    errorHandlers.clear()
  }

  const transport: InPageChannel['transport'] = {
    send(message) {
      if (closed) throw new Error('Toolmark in-page channel is closed')
      deliver(agentHandlers, message, false)
    },
    onMessage: (handler) => subscribe(pageHandlers, handler),
    onError: (handler) => subscribe(errorHandlers, handler),
    close,
  }

  const agent: InPageAgent = {
    send(message) {
      if (closed) throw new Error('Toolmark in-page channel is closed')
      deliver(pageHandlers, message, true)
    },
    onMessage: (handler) => subscribe(agentHandlers, handler),
    close,
  }

  return { transport, agent }
}
