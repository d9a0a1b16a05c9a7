/** What agents see of the tools: manifest entries, their hints and schemas. Part of protocol v1. */

/** Hints drive policy and confirmation. `destructive` implies a confirmation like `consequential`. */
export interface ToolHints {
  readOnly?: boolean
  consequential?: boolean
  destructive?: boolean
  untrustedContent?: boolean
}

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>

/** One manifest entry as sent to agents. */
export interface ToolManifestSummary {
  name: string
  llmName: string
  title?: string
  description: string
  hints: ToolHints
  /**
   * The tool's `sensitivePaths` as declared (read once at registration; `['']` when they cannot be
   * read), present only when it declares some: a server masks the input values at these paths
   * before it stores, logs or streams a call. An extension field of protocol v1 manifest entries.
   */
  sensitivePaths?: readonly string[]
  /**
   * Present (`true`) only when the tool declares an output schema: the page checks every `ok` result's
   * data against it, and a server hands the model that data as a structured result (`modelResult`).
   * An extension field of protocol v1 manifest entries.
   */
  structured?: true
  /** `'stepwise'` for the tools of a stepwise wizard (steps are filled and advanced in order). */
  mode?: 'stepwise'
}

/** A full entry, with schemas. */
export interface ToolManifest extends ToolManifestSummary {
  inputSchema: JsonSchema
  outputSchema?: JsonSchema
}

export interface Manifest<T extends ToolManifestSummary = ToolManifestSummary> {
  rev: number
  tools: T[]
}
