'use client'
import type { ConfirmQueue, ConfirmRequest } from '@toolmark/core'
import { useCallback, useMemo, useSyncExternalStore } from 'react'

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
  items: readonly ConfirmRequestItem[]
  approve(confirmId: string, ...input: [] | [input: unknown]): boolean
  reject(confirmId: string): boolean
}

/** Binds a queue's answers to its open requests. */
export function answerQueue(queue: ConfirmQueue, list: readonly ConfirmRequest[]): ConfirmQueueView {
  const approve = (confirmId: string, ...input: [] | [input: unknown]) =>
    input.length === 0 ? queue.approve(confirmId) : queue.approve(confirmId, input[0])
  const reject = (confirmId: string) => queue.reject(confirmId)
  const items = list.map((request) => ({
    ...request,
    approve: (...input: [] | [input: unknown]) => approve(request.confirmId, ...input),
    reject: () => reject(request.confirmId),
  }))
  return { items, approve, reject }
}

/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`), re-rendering when the set changes.
 */
export function useConfirmQueue(queue: ConfirmQueue): ConfirmQueueView {
  const subscribe = useCallback((onChange: () => void) => queue.subscribe(onChange), [queue])
  const getSnapshot = useCallback(() => queue.getPending(), [queue])
  const list = useSyncExternalStore(subscribe, getSnapshot, getSnapshot)
  return useMemo(() => answerQueue(queue, list), [queue, list])
}
