import type { ConfirmQueue } from '@toolmark/core'
import {
  type ApproveArgs,
  type ConfirmRequestItem,
  createQueueView,
  environment,
} from '@toolmark/core/adapter'
import { onScopeDispose, type ShallowRef, shallowRef } from 'vue'

export type { ConfirmRequestItem }

/** What `useConfirmQueue(queue)` returns: open inline requests plus ways to answer them. */
export interface ConfirmQueueView {
  /** Open requests, oldest first (a new array only when the set changes; items keep theirs). */
  items: Readonly<ShallowRef<readonly ConfirmRequestItem[]>>
  /** Approve by id, optionally with edited input. False when the request is no longer open. */
  approve(confirmId: string, ...args: ApproveArgs): boolean
  /** Reject by id. False when the request is no longer open. */
  reject(confirmId: string): boolean
}

/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`) as a shallow ref, unsubscribed in `onScopeDispose`.
 */
export function useConfirmQueue(queue: ConfirmQueue): ConfirmQueueView {
  const view = createQueueView(queue)
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
