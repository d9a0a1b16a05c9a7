/**
 * What every bridge transport implements. Transports move messages; they never validate them:
 * inbound values go to the bridge as they arrived (hostile until proven otherwise).
 */
export interface BridgeTransport {
  /**
   * Send one page→agent message (already a detached JSON-safe object). Rejects (or throws) when
   * it cannot be sent; the bridge reports `transport_failed`.
   */
  send(message: unknown): void | Promise<void>
  /**
   * Register the single inbound handler. Called once by the bridge on attach. Returns an
   * unsubscribe function. Each inbound value is passed as received (parsed JSON or a structured
   * clone), unvalidated.
   */
  onMessage(handler: (message: unknown) => void): () => void
  /** Optional: report transport-level failures (auth, socket errors) to the bridge. */
  onError?(handler: (error: unknown) => void): () => void
  /**
   * Optional: calls `handler` with the connection state now and on each change (what the bridge
   * publishes as its status for inspectors). Returns an unsubscribe function.
   */
  onState?(handler: (state: TransportState) => void): () => void
  /** Release sockets and listeners. Idempotent. */
  close?(): void | Promise<void>
}

/** A transport's connection: `connecting` (also between reconnects), `open`, or `closed` for good. */
export type TransportState = 'connecting' | 'open' | 'closed'
