import type { AnySchema, ToolDefinition, ToolHints } from '../types.ts'

type AnyDefinition = ToolDefinition<AnySchema | undefined, unknown>

/**
 * How a tool binding carries one field of a definition into its registration:
 * - `value`: copied when registering; a new value (compared as is) registers the tool again.
 * - `hints`: copied when registering; new hints register again when a flag's value changes.
 * - `schema`: copied when registering; a new structure (`schemaKey`) registers again. The input
 *   schema validates with the latest definition's schema object.
 * - `optional`: read from the latest definition each time the registry reads it; the tool is
 *   registered again only when the field appears or disappears.
 * - `paths`: like `optional`, and a list's paths are part of the key too (the manifest publishes
 *   them); a function is read each time, as the registry does.
 * - `latest`: read from the latest definition each time the registry reads it; never registers again.
 */
export type FieldRule = 'value' | 'hints' | 'schema' | 'optional' | 'paths' | 'latest'

/**
 * The rule for every field of `ToolDefinition`. Typed against the definition's keys, so a field
 * added to `ToolDefinition` does not compile until it gets a rule here: no field is left behind.
 */
export const DEFINITION_FIELDS = {
  name: 'value',
  description: 'value',
  title: 'value',
  mode: 'value',
  callers: 'value',
  hints: 'hints',
  input: 'schema',
  output: 'schema',
  jsonSchema: 'schema',
  summary: 'optional',
  state: 'optional',
  snapshot: 'optional',
  changes: 'optional',
  sensitivePaths: 'paths',
  anchors: 'optional',
  grantable: 'value',
  undoable: 'latest',
  run: 'latest',
} as const satisfies Record<keyof ToolDefinition, FieldRule>

type Field = keyof typeof DEFINITION_FIELDS
const FIELDS = /* @__PURE__ */ Object.keys(DEFINITION_FIELDS) as Field[]

const hintsKey = (hints: ToolHints | undefined): string =>
  hints
    ? `${+!!hints.readOnly}${+!!hints.consequential}${+!!hints.destructive}${+!!hints.untrustedContent}`
    : ''

const keyed = /* @__PURE__ */ FIELDS.filter(
  (field) => DEFINITION_FIELDS[field] !== 'latest' && DEFINITION_FIELDS[field] !== 'optional',
)
const optional = /* @__PURE__ */ FIELDS.filter((field) => DEFINITION_FIELDS[field] === 'optional')

/**
 * The parts of a definition that decide whether it is a new registration: one per keyed field in
 * `DEFINITION_FIELDS` order, then which `optional` fields it declares (a `0`/`1` per field); `latest`
 * fields have none. Equal lists mean the same registration.
 */
export function structuralParts(definition: AnyDefinition): unknown[] {
  const parts: unknown[] = []
  for (const field of keyed) parts.push(keyPart(DEFINITION_FIELDS[field], definition[field]))
  let declared = ''
  for (const field of optional) declared += definition[field] === undefined ? '0' : '1'
  parts.push(declared)
  return parts
}

/** What a field's value adds to the structural key under its rule. */
function keyPart(rule: FieldRule, value: unknown): unknown {
  switch (rule) {
    case 'value':
      return value ?? null
    case 'hints':
      return hintsKey(value as ToolHints | undefined)
    case 'schema':
      return schemaKey(value)
    case 'optional':
      return value !== undefined
    case 'paths':
      return typeof value === 'function' ? 'fn' : (value ?? null)
    case 'latest':
      return null
  }
}

const isOptional = (field: Field): boolean =>
  DEFINITION_FIELDS[field] === 'optional' || DEFINITION_FIELDS[field] === 'paths'

/** A stable key telling which optional, closure-valued fields a definition declares. */
export function optionalKey(definition: AnyDefinition): string {
  return FIELDS.filter((field) => isOptional(field) && definition[field] !== undefined).join(',')
}

/**
 * Builds the definition handed to `tm.register` from `registered` (the definition the registration
 * is made for): `value`, `hints` and `schema` fields are copied from it, and every `optional` or
 * `latest` field (`run`, `summary`, `changes`, `undoable`, …) is a getter reading `latest()`, so a
 * re-render with new closures neither re-registers nor bumps `rev`. A function read that way is
 * called on its own definition (`this` is the definition the app wrote).
 */
export function liveDefinition(registered: AnyDefinition, latest: () => AnyDefinition): AnyDefinition {
  const def = {} as AnyDefinition
  for (const field of FIELDS) {
    const rule = DEFINITION_FIELDS[field]
    if (rule === 'value' || rule === 'hints' || rule === 'schema') {
      const value = registered[field]
      if (value === undefined) continue
      ;(def as Record<Field, unknown>)[field] =
        field === 'input' ? latestSchema(value as AnySchema, () => latest().input) : value
    } else if (rule === 'latest' || registered[field] !== undefined) {
      Object.defineProperty(def, field, { enumerable: true, get: reader(field, latest) })
    }
  }
  return def
}

/**
 * Reads `field` of the latest definition; a function comes back bound to its definition (as a
 * method call on it would be), the same bound function while the definition is the same.
 */
function reader(field: Field, latest: () => AnyDefinition): () => unknown {
  let source: unknown
  let owner: AnyDefinition | undefined
  let bound: unknown
  return () => {
    const definition = latest()
    const value = definition[field]
    if (typeof value !== 'function') return value
    if (value !== source || definition !== owner) {
      source = value
      owner = definition
      bound = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(definition, args)
    }
    return bound
  }
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
