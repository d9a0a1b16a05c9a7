import type { ConfirmQueue, ConfirmRequest } from '@toolmark/core'
import { externalStore, type ReactiveStore } from './store.js'

/** An inline confirmation request with its answers bound. */
export interface ConfirmRequestItem extends ConfirmRequest {
  /** Approve (optionally with edited input). False when the request is no longer open. */
  approve(...input: [] | [input: unknown]): boolean
  /** Reject. False when the request is no longer open. */
  reject(): boolean
}

/** Open inline requests as a store of items (`$requests`), plus answers by id. */
export interface ConfirmQueueStore extends ReactiveStore<readonly ConfirmRequestItem[]> {
  approve(confirmId: string, ...input: [] | [input: unknown]): boolean
  reject(confirmId: string): boolean
}

/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`) as a store, subscribed while listened to.
 */
export function useConfirmQueue(queue: ConfirmQueue): ConfirmQueueStore {
  const approve = (confirmId: string, ...input: [] | [input: unknown]) =>
    input.length === 0 ? queue.approve(confirmId) : queue.approve(confirmId, input[0])
  const reject = (confirmId: string) => queue.reject(confirmId)
  let source: readonly ConfirmRequest[] | undefined
  let items: readonly ConfirmRequestItem[] = []
  const read = () => {
    const list = queue.getPending()
    if (list !== source) {
      source = list
      items = list.map((request) => ({
        ...request,
        approve: (...input: [] | [input: unknown]) => approve(request.confirmId, ...input),
        reject: () => reject(request.confirmId),
      }))
    }
    return items
  }
  const store = externalStore(read, (onChange) => queue.subscribe(onChange))
  return {
    subscribe: store.subscribe,
    get current() {
      return store.current
    },
    approve,
    reject,
  }
}
