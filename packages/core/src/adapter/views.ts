import type { ConfirmQueue } from '../confirm/queue.ts'
import type { ConfirmRequest, PendingConfirmation, Remember, Toolmark, ToolResult } from '../types.ts'

/**
 * What an approval takes: nothing, edited input, or edited input (`undefined`: none) and a `remember`
 * choice (a grantable card only).
 */
export type ApproveArgs = [] | [input: unknown] | [input: unknown, remember: Remember]

/**
 * A reactive source in the shape every framework binds (React's `useSyncExternalStore`, a Vue
 * shallow ref, a Svelte store): `getSnapshot()` returns the same value until `subscribe`'s listener
 * is called, so comparing identities is enough to skip work.
 */
export interface ExternalSource<T> {
  /** Calls `onChange` after each change; returns the unsubscribe function. */
  subscribe(onChange: () => void): () => void
  /** The current value; the same object while nothing changed. */
  getSnapshot(): T
}

/** A deferred confirmation with its answers bound. */
export interface PendingConfirmationItem extends PendingConfirmation {
  /**
   * Approve (optionally with edited input, re-validated by the core, and a `remember` choice); resolves
   * with the tool's result.
   */
  approve(...args: ApproveArgs): Promise<ToolResult>
  /** Reject; resolves with the `cancelled` result the agent also receives. */
  reject(reason?: string): Promise<ToolResult>
}

/** An inline confirmation request with its answers bound. */
export interface ConfirmRequestItem extends ConfirmRequest {
  /** Approve (optionally with edited input). False when the request is no longer open. */
  approve(...args: ApproveArgs): boolean
  /** Reject. False when the request is no longer open. */
  reject(): boolean
}

/** `tm.pendingConfirmations()` as items with bound answers, plus answers by id. */
export interface PendingView extends ExternalSource<readonly PendingConfirmationItem[]> {
  /**
   * Approve by id (`tm.confirmPending(confirmId, { approved: true, input? })`); an unknown, used or
   * expired id resolves with the core's `refused` result, never a rejection.
   */
  approve(confirmId: string, ...args: ApproveArgs): Promise<ToolResult>
  /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`); same results as `approve`. */
  reject(confirmId: string, reason?: string): Promise<ToolResult>
}

/** A confirm queue's open requests as items with bound answers, plus answers by id. */
export interface QueueView extends ExternalSource<readonly ConfirmRequestItem[]> {
  /** Approve by id, optionally with edited input. False when the request is no longer open. */
  approve(confirmId: string, ...args: ApproveArgs): boolean
  /** Reject by id. False when the request is no longer open. */
  reject(confirmId: string): boolean
}

/**
 * Maps a changing list onto items with bound answers: a new array only when the list changed, and
 * the same item object for the same entry across snapshots (so keyed UIs and memos keep it).
 */
function bindList<S extends object, I>(read: () => readonly S[], bind: (entry: S) => I): () => readonly I[] {
  const items = new WeakMap<S, I>()
  let source: readonly S[] | undefined
  let snapshot: readonly I[] = []
  return () => {
    const list = read()
    if (list === source) return snapshot
    source = list
    snapshot = list.map((entry) => {
      let item = items.get(entry)
      if (item === undefined) {
        item = bind(entry)
        items.set(entry, item)
      }
      return item
    })
    return snapshot
  }
}

/** The outcome an approval sends: edited input and `remember` only when given. */
function outcomeOf(args: ApproveArgs): { approved: true; input?: unknown; remember?: Remember } {
  const [input, remember] = args
  return {
    approved: true,
    ...(input !== undefined && { input }),
    ...(remember !== undefined && { remember }),
  }
}

/**
 * The deferred confirmations of `tm` for a UI: every change of the set (request, answer, expiry,
 * scope disposal) ends in a `confirm` event, which is what `subscribe` listens to.
 */
export function createPendingView(tm: Toolmark): PendingView {
  const approve = (confirmId: string, ...args: ApproveArgs): Promise<ToolResult> =>
    tm.confirmPending(confirmId, outcomeOf(args))
  const reject = (confirmId: string, reason?: string): Promise<ToolResult> =>
    tm.confirmPending(confirmId, reason === undefined ? { approved: false } : { approved: false, reason })
  const getSnapshot = bindList(
    () => tm.pendingConfirmations(),
    (pending): PendingConfirmationItem => ({
      ...pending,
      approve: (...args: ApproveArgs) => approve(pending.confirmId, ...args),
      reject: (reason?: string) => reject(pending.confirmId, reason),
    }),
  )
  return { subscribe: (onChange) => tm.events.on('confirm', onChange), getSnapshot, approve, reject }
}

/** The open requests of an inline confirmation queue (`createConfirmQueue()`) for a UI. */
export function createQueueView(queue: ConfirmQueue): QueueView {
  const approve = (confirmId: string, ...args: ApproveArgs): boolean =>
    queue.approve(confirmId, args[0], args[1])
  const reject = (confirmId: string): boolean => queue.reject(confirmId)
  const getSnapshot = bindList(
    () => queue.getPending(),
    (request): ConfirmRequestItem => ({
      ...request,
      approve: (...args: ApproveArgs) => approve(request.confirmId, ...args),
      reject: () => reject(request.confirmId),
    }),
  )
  return { subscribe: (onChange) => queue.subscribe(onChange), getSnapshot, approve, reject }
}
