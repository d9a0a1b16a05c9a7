import type { AnySchema, ToolAnchors, ToolDefinition, ToolHints } from '../types.ts'

/** The parts of a definition whose change means a new registration (they shape the manifest). */
export interface StructuralParts {
  name: string
  description: string
  title: string | undefined
  hints: ToolHints | undefined
  input: AnySchema | undefined
  output: ToolDefinition['output']
  jsonSchema: ToolDefinition['jsonSchema']
  /** Which optional callbacks exist, as a stable string key (see `optionalKey`). */
  optional: string
}

const OPTIONAL = ['summary', 'state', 'snapshot', 'sensitivePaths', 'anchors'] as const

/** A stable key telling which optional, closure-valued fields a definition declares. */
export function optionalKey(definition: ToolDefinition<AnySchema | undefined, unknown>): string {
  return OPTIONAL.filter((key) => definition[key] !== undefined).join(',')
}

/**
 * Builds the definition handed to `tm.register`: structural parts are fixed, every closure
 * (`run`, `summary`, `state`, `snapshot`, `sensitivePaths`, `anchors`) and `undoable` read the latest definition,
 * so a re-render with new closures neither re-registers nor bumps `rev`.
 */
export function liveDefinition(
  parts: StructuralParts,
  latest: () => ToolDefinition<AnySchema | undefined, unknown>,
): ToolDefinition<AnySchema | undefined, unknown> {
  const def: ToolDefinition<AnySchema | undefined, unknown> = {
    name: parts.name,
    description: parts.description,
    run: (input, ctx) => latest().run(input, ctx),
  }
  if (parts.title !== undefined) def.title = parts.title
  if (parts.hints !== undefined) def.hints = parts.hints
  if (parts.input !== undefined) def.input = latestSchema(parts.input, () => latest().input)
  if (parts.output !== undefined) def.output = parts.output
  if (parts.jsonSchema !== undefined) def.jsonSchema = parts.jsonSchema
  // Read when a card is built, so the latest definition decides what the card says.
  Object.defineProperty(def, 'undoable', { enumerable: true, get: () => latest().undoable })
  const has = new Set(parts.optional.split(','))
  if (has.has('summary')) {
    def.summary = (input) => {
      const summary = latest().summary
      return typeof summary === 'function' ? summary(input) : (summary ?? '')
    }
  }
  if (has.has('state')) def.state = () => latest().state?.()
  if (has.has('snapshot')) def.snapshot = () => latest().snapshot?.()
  if (has.has('sensitivePaths')) {
    def.sensitivePaths = () => {
      const paths = latest().sensitivePaths
      return typeof paths === 'function' ? paths() : (paths ?? [])
    }
  }
  if (has.has('anchors')) {
    // Getters: the core reads anchors when `tm.anchor(...)` is called, so the latest ones apply.
    def.anchors = {
      get tool() {
        return latest().anchors?.tool
      },
      get params() {
        return latest().anchors?.params
      },
    } as ToolAnchors
  }
  return def
}

/**
 * The registered schema, validating with the latest render's schema object: adapters keep a
 * schema across renders while its JSON Schema is unchanged (`schemaKey`), so a refinement the JSON
 * Schema cannot show (a zod `.refine`) still applies without registering again.
 */
function latestSchema(registered: AnySchema, latest: () => AnySchema | undefined): AnySchema {
  const std = registered['~standard']
  return {
    '~standard': {
      ...std,
      validate: (value: unknown) => (latest() ?? registered)['~standard'].validate(value),
    },
  } as AnySchema
}

const schemaKeys = new WeakMap<object, string>()
let schemaIds = 0

/**
 * A structural key for a schema, so an inline `input: z.object({...})` written in a component does
 * not register the tool again on every render: its JSON Schema text when the library offers one
 * (Standard JSON Schema), the JSON text of a plain JSON Schema object, else the object's identity.
 * Cached per object.
 */
export function schemaKey(schema: unknown): string {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) return String(schema)
  const cached = schemaKeys.get(schema)
  if (cached !== undefined) return cached
  let key: string
  try {
    const std = (
      schema as { '~standard'?: { vendor?: string; jsonSchema?: { input?: (o: object) => unknown } } }
    )['~standard']
    if (std) {
      const convert = std.jsonSchema?.input
      key =
        typeof convert === 'function'
          ? `std:${std.vendor}:${JSON.stringify(convert({ target: 'draft-2020-12' }))}`
          : `id:${++schemaIds}`
    } else key = `json:${JSON.stringify(schema)}`
  } catch {
    key = `id:${++schemaIds}`
  }
  schemaKeys.set(schema, key)
  return key
}
