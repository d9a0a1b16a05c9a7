import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import type { AgentToPageMessage } from '@toolmark/protocol'
import type { ExtensionsAcceptMessage } from '@toolmark/protocol/extensions'
import type { ConfirmBinding } from '../store/store.ts'

/** Why an inbound page message was rejected (logged, never handed to the agent). */
export type RejectReason =
  | 'invalid' // not JSON, too large/deep, or not a valid page→agent message
  | 'unknown_id' // a result for an id the server never issued (MUST 4)
  | 'mismatch' // id/confirmId/clientId bound to another user, conversation or page load (MUST 3)
  | 'duplicate' // a second result for the same id (MUST 4)
  | 'late' // a result after the call's deadline (MUST 5)
  | 'unknown_confirm' // a confirmed whose confirmId no accepted needs_confirmation carried (MUST 3)
  | 'duplicate_confirm' // a second confirmed for the same confirmId
  | 'expired_confirm' // a confirmed for a confirmId of a page that is gone (treated as expired)
  | 'old_rev' // a manifest with a lower rev than the one stored for its clientId (out of order)

/** One rejected inbound message, for logs and tests. Never carries the message's payload. */
export interface Rejection {
  reason: RejectReason
  type: string
  userId: string
  conversationId: string
  clientId?: string
  id?: string
  detail?: string
}

/** What a relayed request resolves with. */
export interface RequestOutcome {
  callId: string
  clientId: string | undefined
  result: ToolResult
  timedOut: boolean
}

/** A protocol request the agent loop makes on behalf of one of its tool calls. */
export type PageRequest =
  | {
      kind: 'call'
      tool: string
      input: Record<string, unknown>
      rev?: number
      /** The input's values at the tool's sensitive paths: cut out of a `needs_confirmation` summary. */
      secrets?: readonly string[]
      /** Aborting it withdraws the request: the page gets a `cancel`, the outcome is {@link CANCELLED_RESULT}. */
      signal?: AbortSignal
    }
  | { kind: 'describe'; tool: string; signal?: AbortSignal }

/** The page a conversation is bound to and the latest manifest it sent. */
export interface BoundPage {
  clientId: string
  rev: number
  tools: ToolManifestSummary[]
}

/** What `relay.on(event, listener)` reports. */
export interface RelayEvents {
  rejected: Rejection
  /**
   * A confirmation was answered. `secrets` are the input values at the tool's sensitive paths of the call
   * that asked for it, when this instance knows them: cut out of what is stored of the outcome.
   */
  confirmed: { binding: ConfirmBinding; result: ToolResult; secrets: readonly string[] }
  /** Confirmations that can no longer be approved: their page is gone, or (`lifetime`) their time ran out. */
  expired: { conversationId: string; bindings: ConfirmBinding[]; reason?: 'gone' | 'lifetime' }
  rebound: { conversationId: string; from: string | undefined; to: string }
  /**
   * A pending decision ended without the user's answer: asked again on a new page load, its tool was changed
   * (`stale`) or gone (`unknown_tool`), the page answered without asking, or its lifetime ran out. `result` is
   * what the agent is told for the call `toolCallId`; `why` says it in words.
   */
  withdrawn: { conversationId: string; toolCallId: string; tool: string; result: ToolResult; why: string }
  /**
   * A page reported how far a call in flight has come (the `progress` extension), masked: for the model's tool
   * call `toolCallId`, a fraction from 0 to 1 and/or a short message.
   */
  progress: { conversationId: string; toolCallId: string; tool: string; fraction?: number; message?: string }
}

/** One authenticated socket, bound to a user and a conversation before anything is relayed. */
export interface PageConnection {
  /**
   * Handle one inbound text frame (after the frames before it); resolves true when it was accepted,
   * false when rejected (and logged) or when the store failed (logged too).
   */
  receive(text: string): Promise<boolean>
  /**
   * The page connection moved to instance `to` (a stream resumed there): it is closed here without giving up
   * its page loads, whose claims `to` takes; what still arrives here for them goes on to `to` for a while.
   * Returns the page loads it carried.
   */
  handOver(to: string): string[]
  /**
   * A message the transport (or the instance it reached) refused before parsing it, for breaking the protocol's
   * inbound limits: rejected as `invalid` with `detail` (`too large`, `too_deep`, …), in order with the others.
   */
  refuse(detail: string): Promise<boolean>
  /** The socket closed. */
  close(): void
}

/**
 * What the relay writes to a page connection: a bridge message, or its answer to the page's extensions offer.
 * It stays an object until the transport writes it.
 */
export type ToPageMessage = AgentToPageMessage | ExtensionsAcceptMessage

/** The relay's record of one socket: who it is bound to and which page loads it has carried. */
export interface Conn {
  userId: string
  conversationId: string
  /** Writes a message to the socket; the transport serializes it. */
  send: (message: ToPageMessage) => void
  clientIds: Set<string>
  open: boolean
  /** The `progress` messages passed on in the current one-second window (the rest are dropped). */
  progressWindow?: { start: number; count: number }
}

/** A request waiting for its result: how to resolve it, its deadline timer, the secrets of its input. */
export interface Waiter {
  resolve: (outcome: RequestOutcome) => void
  timer: unknown
  secrets: readonly string[]
}
