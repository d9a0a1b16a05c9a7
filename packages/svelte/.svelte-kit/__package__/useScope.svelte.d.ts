import { type ScopeView } from './context.js';
export interface UseScopeOptions {
    /** While false the scope's tools are hidden; a getter reading state is tracked and applied at once. */
    when?: boolean | (() => boolean);
    /** A transparent scope adds no name segment and shares its parent's call queue. */
    transparent?: boolean;
}
/**
 * A scope named `name` (or a getter of it) for this component: created in an `$effect` on mount,
 * disposed in its teardown with its tools and pending confirmations, and set in context so
 * descendants' `useTool` register in it. `current` is `null` until it exists (and on the server).
 * Call during component initialisation.
 */
export declare function useScope(name: string | (() => string), options?: UseScopeOptions): ScopeView;
