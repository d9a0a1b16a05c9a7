import type { StandardSchemaV1 } from '@standard-schema/spec'
import { hintClass } from '../policy/policy.ts'
import { fromJsonSchema } from '../schema/json-schema.ts'
import type { HintClass, JsonSchema, ToolDefinition, ToolManifest, ToolManifestSummary } from '../types.ts'
import { llmName } from './names.ts'
import type { ScopeImpl } from './scope.ts'

type Validate = (
  value: unknown,
) => StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>

/** One registration. Bound to confirmations by identity: a new registration is a new Entry. */
export class Entry {
  readonly name: string
  readonly llmName: string
  readonly def: ToolDefinition
  readonly scope: ScopeImpl
  readonly hintClass: HintClass
  /** Consequential or destructive (or unannotated under `confirmUnannotated`). */
  readonly confirms: boolean
  /** Validates input: the tool's schema, its `jsonSchema` (fromJsonSchema subset), or nothing. */
  readonly validate: Validate | undefined
  readonly summary: ToolManifestSummary
  disposed = false
  #full: ToolManifest | undefined

  constructor(name: string, def: ToolDefinition, scope: ScopeImpl, confirmUnannotated: boolean) {
    this.name = name
    this.llmName = llmName(name)
    this.def = def
    this.scope = scope
    this.hintClass = hintClass(def.hints)
    this.confirms =
      this.hintClass === 'consequential' ||
      this.hintClass === 'destructive' ||
      (confirmUnannotated && this.hintClass === 'unannotated')
    const schema = def.input ?? (def.jsonSchema ? fromJsonSchema(def.jsonSchema) : undefined)
    this.validate = schema ? (value) => schema['~standard'].validate(value) : undefined
    const hints = { ...def.hints }
    const summary: ToolManifestSummary =
      def.title === undefined
        ? { name, llmName: this.llmName, description: def.description, hints }
        : { name, llmName: this.llmName, title: def.title, description: def.description, hints }
    if (def.mode === 'stepwise') summary.mode = 'stepwise'
    this.summary = Object.freeze(summary)
  }

  /** True when a JSON Schema can be derived without running the converter. */
  get canDeriveSchema(): boolean {
    const def = this.def
    return def.jsonSchema !== undefined || def.input === undefined || hasJsonSchemaConverter(def.input)
  }

  /**
   * The full entry, derived on first use and cached. Throws when the schema library cannot convert;
   * the registry turns that into `schema_conversion_failed`.
   */
  full(onFailure: (err: unknown) => void): ToolManifest {
    if (this.#full) return this.#full
    let inputSchema: JsonSchema
    try {
      inputSchema = deriveSchema(this.def.jsonSchema, this.def.input, 'input') ?? { type: 'object' }
    } catch (err) {
      onFailure(err)
      inputSchema = {}
    }
    let outputSchema: JsonSchema | undefined
    try {
      outputSchema = this.def.output ? deriveSchema(undefined, this.def.output, 'output') : undefined
    } catch {
      outputSchema = undefined
    }
    const entry: ToolManifest = { ...this.summary, inputSchema }
    if (outputSchema) entry.outputSchema = outputSchema
    this.#full = Object.freeze(entry)
    return this.#full
  }
}

interface JsonSchemaConverter {
  input(options: { target: string }): Record<string, unknown>
  output(options: { target: string }): Record<string, unknown>
}

function converterOf(schema: unknown): JsonSchemaConverter | undefined {
  const std = (schema as { '~standard'?: { jsonSchema?: JsonSchemaConverter } } | undefined)?.['~standard']
  const conv = std?.jsonSchema
  return conv && typeof conv.input === 'function' ? conv : undefined
}

function hasJsonSchemaConverter(schema: unknown): boolean {
  return converterOf(schema) !== undefined
}

/** The override wins; else the Standard JSON Schema converter; `undefined` when there is no schema. */
function deriveSchema(
  override: JsonSchema | undefined,
  schema: unknown,
  io: 'input' | 'output',
): JsonSchema | undefined {
  if (override) return override
  if (schema === undefined) return undefined
  const conv = converterOf(schema)
  if (!conv)
    throw new Error('The schema library offers no JSON Schema (~standard.jsonSchema); pass `jsonSchema`')
  const { $schema: _drop, ...rest } = conv[io]({ target: 'draft-2020-12' })
  return rest
}
