import type { Scope, Toolmark } from '@toolmark/core';
/** A reactive view of the current scope: `current` is `null` while it does not exist yet. */
export interface ScopeView {
    readonly current: Scope | null;
}
/** The message thrown by `useToolmark()` when no instance was set in context. */
export declare const NO_TOOLMARK = "No Toolmark found: wrap your components in <ToolmarkProvider toolmark={tm}> or call setToolmarkContext(tm) in a parent component.";
/** Sets `tm` in context for this component's descendants (`<ToolmarkProvider>` does it for you). */
export declare function setToolmarkContext(tm: Toolmark): Toolmark;
/** The Toolmark instance from context; throws a clear error without one. Call during component init. */
export declare function useToolmark(): Toolmark;
/** @internal Sets the scope descendants' `useTool` registers in. */
export declare function setScopeContext(scope: ScopeView): void;
/** @internal The scope set by an ancestor's `useScope` (`undefined` at the registry root). */
export declare function getScopeContext(): ScopeView | undefined;
