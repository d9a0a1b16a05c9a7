import type { PendingConfirmation, ToolResult } from '@toolmark/core';
import { type ReactiveStore } from './store.js';
/** A deferred confirmation with its answers bound. */
export interface PendingConfirmationItem extends PendingConfirmation {
    /** Approve (optionally with edited input, re-validated by the core); resolves with the tool's result. */
    approve(...input: [] | [input: unknown]): Promise<ToolResult>;
    /** Reject; resolves with the `cancelled` result the agent also receives. */
    reject(reason?: string): Promise<ToolResult>;
}
/** Deferred confirmations as a store of items (`$pending`), plus answers by id. */
export interface PendingConfirmationsStore extends ReactiveStore<readonly PendingConfirmationItem[]> {
    /** Approve by id (`tm.confirmPending(confirmId, { approved: true, input? })`). */
    approve(confirmId: string, ...input: [] | [input: unknown]): Promise<ToolResult>;
    /** Reject by id (`tm.confirmPending(confirmId, { approved: false, reason? })`). */
    reject(confirmId: string, reason?: string): Promise<ToolResult>;
}
/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a store of items with bound
 * `approve`/`reject`, updated when the set changes (request, answer, expiry, scope disposal).
 * Call during component initialisation; `$pending` unsubscribes when the component is destroyed.
 */
export declare function usePendingConfirmations(): PendingConfirmationsStore;
