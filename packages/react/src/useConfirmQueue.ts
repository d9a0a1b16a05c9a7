'use client'
import type { ConfirmQueue } from '@toolmark/core'
import { type ApproveArgs, type ConfirmRequestItem, createQueueView } from '@toolmark/core/adapter'
import { useMemo, useSyncExternalStore } from 'react'

export type { ConfirmRequestItem }

/** What `useConfirmQueue(queue)` returns: open inline requests plus ways to answer them. */
export interface ConfirmQueueView {
  /** Open requests, oldest first (identity changes only when the set changes; items keep theirs). */
  items: readonly ConfirmRequestItem[]
  /**
   * Approve by id, optionally with edited input and a `remember` choice. False when the request is no
   * longer open.
   */
  approve(confirmId: string, ...args: ApproveArgs): boolean
  /** Reject by id. False when the request is no longer open. */
  reject(confirmId: string): boolean
}

/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`), re-rendering when the set changes.
 */
export function useConfirmQueue(queue: ConfirmQueue): ConfirmQueueView {
  const view = useMemo(() => createQueueView(queue), [queue])
  const items = useSyncExternalStore(view.subscribe, view.getSnapshot, view.getSnapshot)
  return useMemo(() => ({ items, approve: view.approve, reject: view.reject }), [view, items])
}
