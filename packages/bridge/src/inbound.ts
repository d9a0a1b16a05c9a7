import type { ConsumerHost, ConsumerRunOptions, ToolResult } from '@toolmark/core'
import { newId } from '@toolmark/core/adapter'
import type { AgentToPageMessage } from '@toolmark/protocol'
import {
  boundedCopy,
  ERROR_MESSAGES,
  MAX_DEPTH,
  PROTOCOL_VERSION,
  UNKNOWN_TOOL_MESSAGE,
  validateMessage,
} from '@toolmark/protocol'
import { CancelToken } from './cancel-token.ts'
import type { Delivery } from './delivery.ts'
import { type Outbound, report } from './outbound.ts'

/** How many answered call/describe ids the bridge remembers to ignore duplicates (each id is answered once; docs/protocol/v1.md, Rules). */
export const ANSWERED_ID_MEMORY = 1000

/** The inbound side of one attach: the transport's message handler, and the calls it started. */
export interface Inbound {
  /** Handles one value as the transport received it. Never throws; does nothing once detached. */
  receive(raw: unknown): void
  /** On detach: nothing more is handled, and every call still in flight is aborted (its result is not sent). */
  stop(): void
}

/**
 * Every inbound value goes through the same steps, and nothing runs before the last one:
 * bound and copy it, keep only messages for this page, answer another protocol version, validate,
 * then dispatch. Calls run with `conversation` (the one the page bound the bridge to) when given. A value dropped on the way is the error event `invalid_message`, never answered.
 */
export function inbound(
  tm: ConsumerHost,
  clientId: string,
  maxBytes: number,
  out: Outbound,
  confirmations: Delivery,
  conversation?: string,
): Inbound {
  /** Protocol id → the abort handle of our call still running for it. */
  const inflight = new Map<string, CancelToken>()
  /** The protocol ids already answered (the newest ANSWERED_ID_MEMORY). */
  const answered = new Set<string>()
  let stopped = false

  /** The same ids in a ring, oldest at `next` once full: forgetting the oldest needs no Set iterator. */
  const ring: Array<string | undefined> = new Array(ANSWERED_ID_MEMORY)
  let next = 0
  const remember = (id: string): void => {
    if (answered.has(id)) return
    const oldest = ring[next]
    if (oldest !== undefined) answered.delete(oldest)
    ring[next] = id
    next = (next + 1) % ANSWERED_ID_MEMORY
    answered.add(id)
  }
  const answer = (id: string, result: ToolResult): void => {
    remember(id)
    out.result(id, result)
  }
  const drop = (reason: string): void => report(tm, 'invalid_message', `Inbound message dropped: ${reason}`)

  const pipeline = (raw: unknown): void => {
    // Bound and copy: too large, too deep or not a plain JSON object is dropped.
    const copied = boundedCopy(raw, { maxBytes, maxDepth: MAX_DEPTH })
    if (!copied.ok) return drop(copied.reason)
    const msg = copied.value as Record<string, unknown> | null
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return drop('not an object')
    // Filter: another page's message is ignored silently.
    if (typeof msg.clientId === 'string' && msg.clientId !== clientId) return
    // Another protocol version, checked before strict validation so a future version's message is
    // answered: with `error "unsupported protocol"` when it carries a fresh string id and our clientId.
    if (msg.protocol !== PROTOCOL_VERSION) {
      const id = msg.id
      if (typeof id !== 'string' || msg.clientId !== clientId || answered.has(id) || inflight.has(id))
        return drop('unsupported protocol')
      return answer(id, { status: 'error', message: ERROR_MESSAGES.unsupportedProtocol })
    }
    // Validate: strictly, as an agent → page message.
    const checked = validateMessage(msg, 'toPage')
    if (!checked.ok) return drop(checked.reason)
    dispatch(checked.message)
  }

  /**
   * A cancel aborts its call, or withdraws the card its `needs_confirmation` answer opened; a
   * describe or call is answered exactly once, by id.
   */
  const dispatch = (msg: AgentToPageMessage): void => {
    const id = msg.id
    if (msg.type === 'cancel') return inflight.get(id)?.abort() ?? confirmations.withdraw(id)
    if (answered.has(id) || inflight.has(id)) return // each id is answered once: a duplicate is ignored
    if (msg.type === 'describe') {
      const entry = tm.describe(msg.tool, { caller: 'inapp' })
      return answer(
        id,
        entry
          ? { status: 'ok', data: entry }
          : { status: 'refused', code: 'unknown_tool', message: UNKNOWN_TOOL_MESSAGE, rev: tm.rev },
      )
    }
    const token = new CancelToken()
    const callId = newId()
    inflight.set(id, token)
    confirmations.pending.add(callId)
    // Observers of the call see its protocol id as meta `{ id }` (the progress extension sends under it).
    // The conversation the page bound this bridge to: grants "for this conversation" match by it.
    const options: ConsumerRunOptions = { caller: 'inapp', signal: token.signal, callId, meta: { id } }
    if (msg.rev !== undefined) options.rev = msg.rev
    if (conversation !== undefined) options.conversation = conversation
    tm.run(msg.tool, msg.input, options).then((result) => {
      inflight.delete(id)
      confirmations.pending.delete(callId)
      if (stopped) return
      answer(id, result)
      if (result.status === 'needs_confirmation') confirmations.awaiting(callId, result.confirmId, id)
    })
  }

  return {
    receive(raw) {
      if (stopped) return
      try {
        pipeline(raw)
      } catch (err) {
        report(tm, 'invalid_message', 'The bridge failed to handle an inbound message', err)
      }
    },
    stop() {
      stopped = true
      for (const token of inflight.values()) token.abort()
      inflight.clear()
    },
  }
}
