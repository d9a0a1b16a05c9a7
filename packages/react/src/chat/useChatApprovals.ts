import { useEffect, useRef, useState } from 'react'
import { useToolmark } from '../context.ts'
import { usePendingConfirmations } from '../usePendingConfirmations.ts'

/** How long an answer whose card is not pending here waits for it to be asked again (after a reload). */
const REASK_WAIT_MS = 3000

/** The part of a `useChat` result this hook reads: its messages (AI SDK UI messages, structurally). */
export interface ChatWithApprovals {
  messages: readonly { role: string; parts: readonly unknown[] }[]
}

/** An approval answered in a `useChat` message: its id (the confirmId) and the user's decision. */
interface Answered {
  id: string
  approved: boolean
  reason?: string
  /** The page tool of the part (`tool-<name>`), and the input it shows. */
  tool?: string
  input?: unknown
}

const answeredIn = (chat: ChatWithApprovals): Answered[] => {
  const found: Answered[] = []
  for (const message of chat.messages) {
    if (message.role !== 'assistant') continue
    for (const part of message.parts) {
      if (typeof part !== 'object' || part === null) continue
      const { state, approval, type, input } = part as {
        state?: unknown
        approval?: Record<string, unknown>
        type?: unknown
        input?: unknown
      }
      if (state !== 'approval-responded' || typeof approval !== 'object' || approval === null) continue
      if (typeof approval.id !== 'string' || typeof approval.approved !== 'boolean') continue
      const answered: Answered = { id: approval.id, approved: approval.approved, input }
      if (typeof approval.reason === 'string') answered.reason = approval.reason
      if (typeof type === 'string' && type.startsWith('tool-')) answered.tool = type.slice(5)
      found.push(answered)
    }
  }
  return found
}

/** JSON of `value` with object keys sorted: equal for equal inputs whatever their key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  )

/**
 * Applies the approvals a user gives in `useChat` (`addToolApprovalResponse`) in the page: each answered
 * approval whose id is a confirmId (as `@toolmark/server/ui-stream` sends them) is passed once to
 * `tm.confirmPending`, so the page runs the tool as caller human (approve) or cancels it (deny), and the bridge
 * reports the outcome to the server as for any deferred confirmation. Expiry, single use and the form's
 * revision check stay the page's: a stale approval gets `confirmation_expired` or `stale`. A card asked again on
 * this page load (after a reload the server asks the user's pending decision again, with a new confirmId) is the
 * one answered when the approval's id is no longer pending here: the one pending card of the same tool with the same
 * input (none, or two alike: the approval's own id, which the page refuses as expired). Call it next to `useChat` inside a `ToolmarkProvider`:
 * `useChatApprovals(chat)`.
 */
/** The confirmId to answer: the approval's own while it is pending here, else the card asked again for it. */
function cardOf(
  pending: readonly { confirmId: string; tool: string; input: unknown }[],
  answer: Answered,
): string {
  if (answer.tool === undefined || pending.some((p) => p.confirmId === answer.id)) return answer.id
  // Only the same action: a card whose input differs is never approved in its place.
  const same = pending.filter((p) => p.tool === answer.tool && canonical(p.input) === canonical(answer.input))
  return same.length === 1 ? same[0]!.confirmId : answer.id
}

export function useChatApprovals(chat: ChatWithApprovals): void {
  const tm = useToolmark()
  // Each approval is applied once per page load, whatever re-renders or StrictMode's double effects do.
  const applied = useRef(new Set<string>())
  /** When each answer was first seen with no card pending for it here. */
  const seen = useRef(new Map<string, number>())
  const pending = usePendingConfirmations().items
  /** When the last wait for a card ran out: the effect looks again then. */
  const [recheckedAt, setRecheckedAt] = useState(0)
  const messages = chat.messages
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const now = Math.max(Date.now(), recheckedAt)
    for (const answer of answeredIn({ messages })) {
      if (applied.current.has(answer.id)) continue
      const card = cardOf(pending, answer)
      if (!pending.some((p) => p.confirmId === card)) {
        // After a reload the card may not be asked again yet: wait a little for it before the page says expired.
        const since = seen.current.get(answer.id) ?? now
        seen.current.set(answer.id, since)
        if (now - since < REASK_WAIT_MS) {
          timer ??= setTimeout(() => setRecheckedAt(Date.now()), REASK_WAIT_MS - (now - since))
          continue
        }
      }
      applied.current.add(answer.id)
      void tm.confirmPending(
        card,
        answer.approved
          ? { approved: true }
          : answer.reason === undefined
            ? { approved: false }
            : { approved: false, reason: answer.reason },
      )
    }
    return () => clearTimeout(timer)
  }, [tm, messages, pending, recheckedAt])
}
