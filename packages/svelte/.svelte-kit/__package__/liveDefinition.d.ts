import type { AnySchema, ToolDefinition, ToolHints } from '@toolmark/core';
/** The parts of a definition whose change means a new registration (they shape the manifest). */
export interface StructuralParts {
    name: string;
    description: string;
    title: string | undefined;
    hints: ToolHints | undefined;
    input: AnySchema | undefined;
    output: ToolDefinition['output'];
    jsonSchema: ToolDefinition['jsonSchema'];
    /** Which optional callbacks exist, as a stable string key (see `optionalKey`). */
    optional: string;
}
/** A stable key telling which optional, closure-valued fields a definition declares. */
export declare function optionalKey(definition: ToolDefinition<AnySchema | undefined, unknown>): string;
/** Shallow equality for hint objects, so an inline `hints: { readOnly: true }` keeps its identity. */
export declare function sameHints(a: ToolHints | undefined, b: ToolHints | undefined): boolean;
/**
 * Builds the definition handed to `tm.register`: structural parts are fixed, every closure
 * (`run`, `summary`, `state`, `snapshot`, `sensitivePaths`, `anchors`) reads the latest definition,
 * so a re-render with new closures neither re-registers nor bumps `rev`.
 */
export declare function liveDefinition(parts: StructuralParts, latest: () => ToolDefinition<AnySchema | undefined, unknown>): ToolDefinition<AnySchema | undefined, unknown>;
