import type { ConfirmQueue } from '@toolmark/core'
import { type ApproveArgs, type ConfirmRequestItem, createQueueView } from '@toolmark/core/adapter'
import { externalStore, type ReactiveStore } from './store.js'

export type { ConfirmRequestItem }

/** What `useConfirmQueue(queue)` returns: open inline requests as a store (`$requests`), plus answers by id. */
export interface ConfirmQueueStore extends ReactiveStore<readonly ConfirmRequestItem[]> {
  /** Approve by id, optionally with edited input. False when the request is no longer open. */
  approve(confirmId: string, ...args: ApproveArgs): boolean
  /** Reject by id. False when the request is no longer open. */
  reject(confirmId: string): boolean
}

/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`) as a store, subscribed while listened to.
 */
export function useConfirmQueue(queue: ConfirmQueue): ConfirmQueueStore {
  const view = createQueueView(queue)
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
