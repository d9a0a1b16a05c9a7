'use client'
import type { ToolResult } from '@toolmark/core'
import { type ApproveArgs, createPendingView, type PendingConfirmationItem } from '@toolmark/core/adapter'
import { useMemo, useSyncExternalStore } from 'react'
import { useToolmark } from './context.ts'

export type { PendingConfirmationItem }

/** What `usePendingConfirmations()` returns: deferred confirmations plus ways to answer them. */
export interface PendingConfirmations {
  /** Open confirmations, oldest first (identity changes only when the set changes; items keep theirs). */
  items: readonly PendingConfirmationItem[]
  /**
   * Approve by id (`tm.confirmPending(confirmId, { approved: true, input?, remember? })`); an unknown,
   * used or expired id resolves with the core's `refused` result.
   */
  approve(confirmId: string, ...args: ApproveArgs): Promise<ToolResult>
  /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`). */
  reject(confirmId: string, reason?: string): Promise<ToolResult>
}

/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a reactive list with `approve`/`reject`.
 * Re-renders only when the set changes: a request, an answer, an expiry or a scope disposal. On the
 * server it renders the registry's current list (empty for a fresh one) and subscribes to nothing.
 */
export function usePendingConfirmations(): PendingConfirmations {
  const tm = useToolmark()
  const view = useMemo(() => createPendingView(tm), [tm])
  const items = useSyncExternalStore(view.subscribe, view.getSnapshot, view.getSnapshot)
  return useMemo(() => ({ items, approve: view.approve, reject: view.reject }), [view, items])
}
