import { environment, type PendingConfirmation, type ToolResult } from '@toolmark/core'
import { onScopeDispose, type ShallowRef, shallowRef } from 'vue'
import { useToolmark } from './injection.ts'

/** A deferred confirmation with its answers bound. */
export interface PendingConfirmationItem extends PendingConfirmation {
  /** Approve (optionally with edited input, re-validated by the core); resolves with the tool's result. */
  approve(...input: [] | [input: unknown]): Promise<ToolResult>
  /** Reject; resolves with the `cancelled` result the agent also receives. */
  reject(reason?: string): Promise<ToolResult>
}

/** Deferred confirmations plus ways to answer them. */
export interface PendingConfirmations {
  /** Open confirmations, oldest first (a new array only when the set changes). */
  items: Readonly<ShallowRef<readonly PendingConfirmationItem[]>>
  /** Approve by id (`tm.confirmPending(confirmId, { approved: true, input? })`). */
  approve(confirmId: string, ...input: [] | [input: unknown]): Promise<ToolResult>
  /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`). */
  reject(confirmId: string, reason?: string): Promise<ToolResult>
}

/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a shallow ref of items with bound
 * `approve`/`reject`, updated when the set changes (request, answer, expiry, scope disposal) and
 * unsubscribed in `onScopeDispose`.
 */
export function usePendingConfirmations(): PendingConfirmations {
  const tm = useToolmark()
  const approve = (confirmId: string, ...input: [] | [input: unknown]) =>
    tm.confirmPending(
      confirmId,
      input.length === 0 ? { approved: true } : { approved: true, input: input[0] },
    )
  const reject = (confirmId: string, reason?: string) =>
    tm.confirmPending(confirmId, reason === undefined ? { approved: false } : { approved: false, reason })
  let source: readonly PendingConfirmation[] | undefined
  const bind = (tmList: readonly PendingConfirmation[]) =>
    tmList.map((pending) => ({
      ...pending,
      approve: (...input: [] | [input: unknown]) => approve(pending.confirmId, ...input),
      reject: (reason?: string) => reject(pending.confirmId, reason),
    }))
  const items = shallowRef<readonly PendingConfirmationItem[]>([])
  const update = () => {
    const list = tm.pendingConfirmations()
    if (list === source) return
    source = list
    items.value = bind(list)
  }
  update()
  // Every change of the set (request, answer, expiry, scope disposal) ends in a 'confirm' event.
  if (!environment.isServer()) onScopeDispose(tm.events.on('confirm', update), true)
  return { items, approve, reject }
}
