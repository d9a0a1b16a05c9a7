import { type ConfirmQueue, type ConfirmRequest, environment } from '@toolmark/core'
import { onScopeDispose, type ShallowRef, shallowRef } from 'vue'

/** An inline confirmation request with its answers bound. */
export interface ConfirmRequestItem extends ConfirmRequest {
  /** Approve (optionally with edited input). False when the request is no longer open. */
  approve(...input: [] | [input: unknown]): boolean
  /** Reject. False when the request is no longer open. */
  reject(): boolean
}

/** Open inline requests plus ways to answer them. */
export interface ConfirmQueueView {
  /** Open requests, oldest first. */
  items: Readonly<ShallowRef<readonly ConfirmRequestItem[]>>
  approve(confirmId: string, ...input: [] | [input: unknown]): boolean
  reject(confirmId: string): boolean
}

/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`) as a shallow ref, unsubscribed in `onScopeDispose`.
 */
export function useConfirmQueue(queue: ConfirmQueue): ConfirmQueueView {
  const approve = (confirmId: string, ...input: [] | [input: unknown]) =>
    input.length === 0 ? queue.approve(confirmId) : queue.approve(confirmId, input[0])
  const reject = (confirmId: string) => queue.reject(confirmId)
  const bind = (list: readonly ConfirmRequest[]) =>
    list.map((request) => ({
      ...request,
      approve: (...input: [] | [input: unknown]) => approve(request.confirmId, ...input),
      reject: () => reject(request.confirmId),
    }))
  const items = shallowRef<readonly ConfirmRequestItem[]>(bind(queue.getPending()))
  if (!environment.isServer()) {
    let source = queue.getPending()
    onScopeDispose(
      queue.subscribe(() => {
        const list = queue.getPending()
        if (list === source) return
        source = list
        items.value = bind(list)
      }),
      true,
    )
  }
  return { items, approve, reject }
}
