import type { ConfirmHandler, ConfirmOutcome, ConfirmRequest, Remember } from '../types.ts'

/** A store of inline confirmation requests for a UI to render and answer. */
export interface ConfirmQueue {
  /** Pass as `createToolmark({ confirm: queue.handler })`. */
  readonly handler: ConfirmHandler
  /** Open requests, oldest first; the array changes identity only when the set changes. */
  getPending(): readonly ConfirmRequest[]
  /** Called after every change; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void
  /**
   * Approve an open request, optionally with edited input and a `remember` choice (a grantable
   * request only). Returns false when it is no longer open.
   */
  approve(confirmId: string, input?: unknown, remember?: Remember): boolean
  /** Reject an open request. Returns false when it is no longer open. */
  reject(confirmId: string): boolean
}

/**
 * Inline confirmations as a queue: the registry's handler waits until the app calls `approve` or
 * `reject`. A request disappears when answered, or when the registry aborts it (expiry, cancel,
 * scope disposal).
 */
export function createConfirmQueue(): ConfirmQueue {
  const open = new Map<string, { request: ConfirmRequest; answer: (outcome: ConfirmOutcome) => void }>()
  const listeners = new Set<() => void>()
  let snapshot: readonly ConfirmRequest[] = Object.freeze([])

  const changed = (): void => {
    snapshot = Object.freeze([...open.values()].map((o) => o.request))
    for (const listener of [...listeners]) listener()
  }
  const settle = (confirmId: string, outcome: ConfirmOutcome): boolean => {
    const item = open.get(confirmId)
    if (!item) return false
    open.delete(confirmId)
    item.answer(outcome)
    changed()
    return true
  }

  return {
    handler(request) {
      return new Promise<ConfirmOutcome>((resolve) => {
        if (request.signal.aborted) return resolve({ approved: false, reason: 'aborted' })
        open.set(request.confirmId, { request, answer: resolve })
        request.signal.addEventListener(
          'abort',
          () => settle(request.confirmId, { approved: false, reason: 'aborted' }),
          {
            once: true,
          },
        )
        changed()
      })
    },
    getPending: () => snapshot,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    // An undefined input or remember is the same as none (the registry reads them so).
    approve: (confirmId, input, remember) =>
      settle(confirmId, { approved: true, input, remember } as ConfirmOutcome),
    reject: (confirmId) => settle(confirmId, { approved: false, reason: 'rejected' }),
  }
}
