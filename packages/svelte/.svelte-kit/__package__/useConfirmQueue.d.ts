import type { ConfirmQueue, ConfirmRequest } from '@toolmark/core';
import { type ReactiveStore } from './store.js';
/** An inline confirmation request with its answers bound. */
export interface ConfirmRequestItem extends ConfirmRequest {
    /** Approve (optionally with edited input). False when the request is no longer open. */
    approve(...input: [] | [input: unknown]): boolean;
    /** Reject. False when the request is no longer open. */
    reject(): boolean;
}
/** Open inline requests as a store of items (`$requests`), plus answers by id. */
export interface ConfirmQueueStore extends ReactiveStore<readonly ConfirmRequestItem[]> {
    approve(confirmId: string, ...input: [] | [input: unknown]): boolean;
    reject(confirmId: string): boolean;
}
/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`) as a store, subscribed while listened to.
 */
export declare function useConfirmQueue(queue: ConfirmQueue): ConfirmQueueStore;
