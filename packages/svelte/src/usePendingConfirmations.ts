import type { ToolResult } from '@toolmark/core'
import { type ApproveArgs, createPendingView, type PendingConfirmationItem } from '@toolmark/core/adapter'
import { useToolmark } from './context.js'
import { externalStore, type ReactiveStore } from './store.js'

export type { PendingConfirmationItem }

/** What `usePendingConfirmations()` returns: a store of deferred confirmations (`$pending`), plus answers by id. */
export interface PendingConfirmationsStore extends ReactiveStore<readonly PendingConfirmationItem[]> {
  /**
   * Approve by id (`tm.confirmPending(confirmId, { approved: true, input? })`); an unknown, used or
   * expired id resolves with the core's `refused` result.
   */
  approve(confirmId: string, ...args: ApproveArgs): Promise<ToolResult>
  /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`). */
  reject(confirmId: string, reason?: string): Promise<ToolResult>
}

/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a store of items with bound
 * `approve`/`reject`, updated when the set changes (request, answer, expiry, scope disposal).
 * Call during component initialisation; `$pending` unsubscribes when the component is destroyed.
 */
export function usePendingConfirmations(): PendingConfirmationsStore {
  const view = createPendingView(useToolmark())
  const store = externalStore(view.getSnapshot, view.subscribe)
  return {
    subscribe: store.subscribe,
    get current() {
      return store.current
    },
    approve: view.approve,
    reject: view.reject,
  }
}
