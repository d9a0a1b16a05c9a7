import type { PendingConfirmation, ToolResult } from '@toolmark/core'
import { useToolmark } from './context.js'
import { externalStore, type ReactiveStore } from './store.js'

/** A deferred confirmation with its answers bound. */
export interface PendingConfirmationItem extends PendingConfirmation {
  /** Approve (optionally with edited input, re-validated by the core); resolves with the tool's result. */
  approve(...input: [] | [input: unknown]): Promise<ToolResult>
  /** Reject; resolves with the `cancelled` result the agent also receives. */
  reject(reason?: string): Promise<ToolResult>
}

/** Deferred confirmations as a store of items (`$pending`), plus answers by id. */
export interface PendingConfirmationsStore extends ReactiveStore<readonly PendingConfirmationItem[]> {
  /** Approve by id (`tm.confirmPending(confirmId, { approved: true, input? })`). */
  approve(confirmId: string, ...input: [] | [input: unknown]): Promise<ToolResult>
  /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`). */
  reject(confirmId: string, reason?: string): Promise<ToolResult>
}

/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a store of items with bound
 * `approve`/`reject`, updated when the set changes (request, answer, expiry, scope disposal).
 * Call during component initialisation; `$pending` unsubscribes when the component is destroyed.
 */
export function usePendingConfirmations(): PendingConfirmationsStore {
  const tm = useToolmark()
  const approve = (confirmId: string, ...input: [] | [input: unknown]) =>
    tm.confirmPending(
      confirmId,
      input.length === 0 ? { approved: true } : { approved: true, input: input[0] },
    )
  const reject = (confirmId: string, reason?: string) =>
    tm.confirmPending(confirmId, reason === undefined ? { approved: false } : { approved: false, reason })
  let source: readonly PendingConfirmation[] | undefined
  let items: readonly PendingConfirmationItem[] = []
  const read = () => {
    const list = tm.pendingConfirmations()
    if (list !== source) {
      source = list
      items = list.map((pending) => ({
        ...pending,
        approve: (...input: [] | [input: unknown]) => approve(pending.confirmId, ...input),
        reject: (reason?: string) => reject(pending.confirmId, reason),
      }))
    }
    return items
  }
  // Every change of the set ends in a 'confirm' event.
  const store = externalStore(read, (onChange) => tm.events.on('confirm', onChange))
  return {
    subscribe: store.subscribe,
    get current() {
      return store.current
    },
    approve,
    reject,
  }
}
