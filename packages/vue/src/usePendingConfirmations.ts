import type { ToolResult } from '@toolmark/core'
import {
  type ApproveArgs,
  createPendingView,
  environment,
  type PendingConfirmationItem,
} from '@toolmark/core/adapter'
import { onScopeDispose, type ShallowRef, shallowRef } from 'vue'
import { useToolmark } from './injection.ts'

export type { PendingConfirmationItem }

/** What `usePendingConfirmations()` returns: deferred confirmations plus ways to answer them. */
export interface PendingConfirmations {
  /** Open confirmations, oldest first (a new array only when the set changes; items keep theirs). */
  items: Readonly<ShallowRef<readonly PendingConfirmationItem[]>>
  /**
   * Approve by id (`tm.confirmPending(confirmId, { approved: true, input? })`); an unknown, used or
   * expired id resolves with the core's `refused` result.
   */
  approve(confirmId: string, ...args: ApproveArgs): Promise<ToolResult>
  /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`). */
  reject(confirmId: string, reason?: string): Promise<ToolResult>
}

/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a shallow ref of items with bound
 * `approve`/`reject`, updated when the set changes (request, answer, expiry, scope disposal) and
 * unsubscribed in `onScopeDispose`. Static on the server.
 */
export function usePendingConfirmations(): PendingConfirmations {
  const view = createPendingView(useToolmark())
  const items = shallowRef(view.getSnapshot())
  if (!environment.isServer()) {
    onScopeDispose(
      view.subscribe(() => {
        items.value = view.getSnapshot()
      }),
      true,
    )
  }
  return { items, approve: view.approve, reject: view.reject }
}
