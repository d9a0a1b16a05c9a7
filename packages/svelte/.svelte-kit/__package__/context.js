import { getContext, hasContext, setContext } from 'svelte';
const TOOLMARK = Symbol('toolmark');
const SCOPE = Symbol('toolmark.scope');
/** The message thrown by `useToolmark()` when no instance was set in context. */
export const NO_TOOLMARK = 'No Toolmark found: wrap your components in <ToolmarkProvider toolmark={tm}> or call setToolmarkContext(tm) in a parent component.';
/** Sets `tm` in context for this component's descendants (`<ToolmarkProvider>` does it for you). */
export function setToolmarkContext(tm) {
    return setContext(TOOLMARK, tm);
}
/** The Toolmark instance from context; throws a clear error without one. Call during component init. */
export function useToolmark() {
    const tm = hasContext(TOOLMARK) ? getContext(TOOLMARK) : undefined;
    if (!tm)
        throw new Error(NO_TOOLMARK);
    return tm;
}
/** @internal Sets the scope descendants' `useTool` registers in. */
export function setScopeContext(scope) {
    setContext(SCOPE, scope);
}
/** @internal The scope set by an ancestor's `useScope` (`undefined` at the registry root). */
export function getScopeContext() {
    return hasContext(SCOPE) ? getContext(SCOPE) : undefined;
}
