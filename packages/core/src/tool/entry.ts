import type { StandardSchemaV1 } from '@standard-schema/spec'
import { hintClass, readCallers } from '../policy/policy.ts'
import { type JsonSchemaCompiler, jsonSchemaValidator } from '../schema/lazy.ts'
import { markWriteOnly } from '../schema/write-only.ts'
import type {
  Caller,
  HintClass,
  JsonSchema,
  ToolDefinition,
  ToolManifest,
  ToolManifestSummary,
} from '../types.ts'
import { llmName } from './names.ts'
import type { CallQueue } from './queue.ts'
import { readSensitivePaths } from './redact.ts'

/**
 * What an entry knows of its scope. The scope module holds entries, so it is described here rather
 * than imported (the dependency runs one way: scope → entry).
 */
export interface EntryScope {
  /** The scope's full name (`''` for the root). */
  readonly path: string
  /** The scope's call queue (shared with its parent when the scope is transparent). */
  readonly queue: CallQueue
  /** The entries registered directly in this scope. */
  readonly entries: Set<Entry>
  /** Visible when it and every ancestor are. */
  visible(): boolean
}

/** What an entry takes from its registry's options. */
export interface EntrySettings {
  /** Unannotated tools ask for confirmation too (`confirmUnannotated`). */
  readonly confirmUnannotated: boolean
  /** The `fromJsonSchema` option: compiles a tool's `jsonSchema` (else loaded on demand). */
  readonly compile: JsonSchemaCompiler | undefined
  /** Told when an on-demand compile of the tool's `jsonSchema` fails. */
  readonly onInvalidSchema?: (err: unknown) => void
}

type Validate = (
  value: unknown,
) => StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>

/** One registration. Bound to confirmations by identity: a new registration is a new Entry. */
export class Entry {
  // Fields the constructor assigns are `declare`d: no field declaration in the published code.
  declare readonly name: string
  declare readonly llmName: string
  declare readonly def: ToolDefinition
  declare readonly scope: EntryScope
  declare readonly hintClass: HintClass
  /** Consequential or destructive (or unannotated under `confirmUnannotated`). */
  declare readonly confirms: boolean
  /** The callers the tool is limited to (`callers`); `undefined`: every caller. */
  declare readonly callers: ReadonlySet<Caller> | undefined
  /** Validates input: the tool's schema, its `jsonSchema` (fromJsonSchema subset, see schema/lazy.ts), or nothing. */
  declare readonly validate: Validate | undefined
  declare readonly summary: ToolManifestSummary
  disposed = false
  #full: ToolManifest | undefined

  constructor(name: string, def: ToolDefinition, scope: EntryScope, settings: EntrySettings) {
    const { confirmUnannotated, compile, onInvalidSchema } = settings
    this.name = name
    this.llmName = llmName(name)
    this.def = def
    this.scope = scope
    this.hintClass = hintClass(def.hints)
    this.callers = readCallers(def.callers, name)
    this.confirms =
      this.hintClass === 'consequential' ||
      this.hintClass === 'destructive' ||
      (confirmUnannotated && this.hintClass === 'unannotated')
    const schema = def.input
    this.validate = schema
      ? (value) => schema['~standard'].validate(value)
      : def.jsonSchema
        ? jsonSchemaValidator(def.jsonSchema, compile, onInvalidSchema)
        : undefined
    const hints = { ...def.hints }
    const summary: ToolManifestSummary = {
      name,
      llmName: this.llmName,
      ...(def.title !== undefined && { title: def.title }),
      description: def.description,
      hints,
    }
    // Published so a server can mask these input values before the first describe (read once here).
    if (def.sensitivePaths !== undefined) {
      const patterns = readSensitivePaths(def.sensitivePaths)
      const paths = patterns.readable ? patterns.paths : ['']
      if (paths.length > 0) summary.sensitivePaths = Object.freeze([...paths])
    }
    if (def.mode === 'stepwise') summary.mode = 'stepwise'
    // It declares the shape of its `ok` data, so an agent may hand that data on as structured content.
    if (def.output !== undefined) summary.structured = true
    this.summary = Object.freeze(summary)
  }

  /** True when a JSON Schema can be derived without running the converter. */
  get canDeriveSchema(): boolean {
    const def = this.def
    return def.jsonSchema !== undefined || def.input === undefined || hasJsonSchemaConverter(def.input)
  }

  /**
   * The full entry, derived on first use and cached. Throws when the schema library cannot convert;
   * the registry turns that into `schema_conversion_failed`. The input schema carries
   * `writeOnly: true` at the tool's sensitive paths; a `sensitivePaths` function is read on every
   * call (only the conversion is cached), so the marks follow it.
   */
  full(onFailure: (err: unknown) => void): ToolManifest {
    const base = this.#base(onFailure)
    const source = this.def.sensitivePaths
    return typeof source === 'function' ? Object.freeze(withWriteOnly(base, source)) : base
  }

  #base(onFailure: (err: unknown) => void): ToolManifest {
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
    let entry: ToolManifest = { ...this.summary, inputSchema }
    if (outputSchema) entry.outputSchema = outputSchema
    if (typeof this.def.sensitivePaths !== 'function') entry = withWriteOnly(entry, this.def.sensitivePaths)
    this.#full = Object.freeze(entry)
    return this.#full
  }
}

/** `entry` with its input schema marked `writeOnly` at the sensitive paths (unreadable paths: the root). */
function withWriteOnly(entry: ToolManifest, source: ToolDefinition['sensitivePaths']): ToolManifest {
  if (source === undefined) return entry
  const patterns = readSensitivePaths(source)
  return {
    ...entry,
    inputSchema: markWriteOnly(entry.inputSchema, patterns.readable ? patterns.segments : [[]]),
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
