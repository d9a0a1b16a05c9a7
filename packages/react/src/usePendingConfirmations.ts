'use client'
import type { PendingConfirmation, Toolmark, ToolResult } from '@toolmark/core'
import { useCallback, useMemo, useSyncExternalStore } from 'react'
import { useToolmark } from './context.ts'

/** A deferred confirmation with its answers bound. */
export interface PendingConfirmationItem extends PendingConfirmation {
  /** Approve (optionally with edited input, re-validated by the core); resolves with the tool's result. */
  approve(...input: [] | [input: unknown]): Promise<ToolResult>
  /** Reject; resolves with the `cancelled` result the agent also receives. */
  reject(reason?: string): Promise<ToolResult>
}

/** Deferred confirmations plus ways to answer them. */
export interface PendingConfirmations {
  /** Open confirmations, oldest first (identity changes only when the set changes). */
  items: readonly PendingConfirmationItem[]
  /** Approve by id (`tm.confirmPending(confirmId, { approved: true, input? })`). */
  approve(confirmId: string, ...input: [] | [input: unknown]): Promise<ToolResult>
  /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`). */
  reject(confirmId: string, reason?: string): Promise<ToolResult>
}

/** Binds `tm.confirmPending` answers to a list of pending confirmations. */
export function answerPending(tm: Toolmark, list: readonly PendingConfirmation[]): PendingConfirmations {
  const approve = (confirmId: string, ...input: [] | [input: unknown]) =>
    tm.confirmPending(
      confirmId,
      input.length === 0 ? { approved: true } : { approved: true, input: input[0] },
    )
  const reject = (confirmId: string, reason?: string) =>
    tm.confirmPending(confirmId, reason === undefined ? { approved: false } : { approved: false, reason })
  const items = list.map((pending) => ({
    ...pending,
    approve: (...input: [] | [input: unknown]) => approve(pending.confirmId, ...input),
    reject: (reason?: string) => reject(pending.confirmId, reason),
  }))
  return { items, approve, reject }
}

/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a reactive list with `approve`/`reject`.
 * Re-renders only when the set changes: a request, an answer, an expiry or a scope disposal.
 */
export function usePendingConfirmations(): PendingConfirmations {
  const tm = useToolmark()
  // Every change of the set (request, answer, expiry, scope disposal) ends in a 'confirm' event.
  const subscribe = useCallback((onChange: () => void) => tm.events.on('confirm', onChange), [tm])
  const getSnapshot = useCallback(() => tm.pendingConfirmations(), [tm])
  const list = useSyncExternalStore(subscribe, getSnapshot, getSnapshot)
  return useMemo(() => answerPending(tm, list), [tm, list])
}
