import type { AnySchema, Scope, ToolDefinition } from '@toolmark/core';
export interface UseToolOptions {
    /**
     * Where to register: a `Scope` (or a getter of one), `null` to wait, or omitted for the nearest
     * ancestor's `useScope` (the registry root without one).
     */
    scope?: Scope | null | (() => Scope | null | undefined);
}
/**
 * Registers `definition` while the component is mounted (`$effect`, disposed in its teardown; never
 * on the server). Pass the definition or a getter returning it (`() => ({ name: `${prefix}.save`, ... })`).
 * `run`, `summary`, `state`, `snapshot`, `sensitivePaths` and `anchors` are read from its latest
 * value; the tool is registered again only when its name, description, title, hints (by value),
 * schemas (by identity) or scope change. Call during component initialisation.
 */
export declare function useTool<S extends AnySchema | undefined = undefined, O = unknown>(definition: ToolDefinition<S, O> | (() => ToolDefinition<S, O>), options?: UseToolOptions): void;
