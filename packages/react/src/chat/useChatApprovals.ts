import { useEffect, useRef } from 'react'
import { useToolmark } from '../context.ts'

/** The part of a `useChat` result this hook reads: its messages (AI SDK UI messages, structurally). */
export interface ChatWithApprovals {
  messages: readonly { role: string; parts: readonly unknown[] }[]
}

/** An approval answered in a `useChat` message: its id (the confirmId) and the user's decision. */
interface Answered {
  id: string
  approved: boolean
  reason?: string
}

const answeredIn = (chat: ChatWithApprovals): Answered[] => {
  const found: Answered[] = []
  for (const message of chat.messages) {
    if (message.role !== 'assistant') continue
    for (const part of message.parts) {
      if (typeof part !== 'object' || part === null) continue
      const { state, approval } = part as { state?: unknown; approval?: Record<string, unknown> }
      if (state !== 'approval-responded' || typeof approval !== 'object' || approval === null) continue
      if (typeof approval.id !== 'string' || typeof approval.approved !== 'boolean') continue
      const answered: Answered = { id: approval.id, approved: approval.approved }
      if (typeof approval.reason === 'string') answered.reason = approval.reason
      found.push(answered)
    }
  }
  return found
}

/**
 * Applies the approvals a user gives in `useChat` (`addToolApprovalResponse`) in the page: each answered
 * approval whose id is a confirmId (as `@toolmark/server/ui-stream` sends them) is passed once to
 * `tm.confirmPending`, so the page runs the tool as caller human (approve) or cancels it (deny), and the bridge
 * reports the outcome to the server as for any deferred confirmation. Expiry, single use and the form's
 * revision check stay the page's: a stale approval gets `confirmation_expired` or `stale`. Call it next to
 * `useChat` inside a `ToolmarkProvider`: `useChatApprovals(chat)`.
 */
export function useChatApprovals(chat: ChatWithApprovals): void {
  const tm = useToolmark()
  // Each approval is applied once per page load, whatever re-renders or StrictMode's double effects do.
  const applied = useRef(new Set<string>())
  const messages = chat.messages
  useEffect(() => {
    for (const answer of answeredIn({ messages })) {
      if (applied.current.has(answer.id)) continue
      applied.current.add(answer.id)
      void tm.confirmPending(
        answer.id,
        answer.approved
          ? { approved: true }
          : answer.reason === undefined
            ? { approved: false }
            : { approved: false, reason: answer.reason },
      )
    }
  }, [tm, messages])
}
