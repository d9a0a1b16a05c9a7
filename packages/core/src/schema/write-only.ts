/**
 * Marks a tool's sensitive input paths in its derived JSON Schema with the standard `writeOnly: true`
 * annotation, so a server that reads the schema (`describe`) knows which values to mask before it
 * stores, logs or streams anything, without guessing from key names.
 */
import { ANY_INDEX } from './paths.ts'

type Schema = Record<string, unknown>

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v)

function mark(schema: unknown, path: readonly string[], at: number): unknown {
  if (!isSchema(schema)) return schema
  const out: Schema = { ...schema }
  // A union describes the same value: the path continues into each branch.
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key]
    if (Array.isArray(branches)) out[key] = branches.map((b) => mark(b, path, at))
  }
  const segment = path[at]
  const props = schema.properties
  if (segment === undefined) out.writeOnly = true
  else if (segment === ANY_INDEX) {
    if (isSchema(schema.items)) out.items = mark(schema.items, path, at + 1)
  } else if (isSchema(props) && isSchema(props[segment])) {
    out.properties = { ...props, [segment]: mark(props[segment], path, at + 1) }
  }
  return out
}

/**
 * A copy of `schema` with `writeOnly: true` on the property schema at each sensitive path (parsed
 * `paths.ts` segments: a key follows `properties`, `[]` follows `items`, and every `anyOf`/`oneOf`
 * branch is followed too; an empty list marks the root). `schema` is never mutated. A path the
 * schema does not describe that way (`$ref`, `additionalProperties`, `prefixItems`, a missing
 * property) marks nothing.
 */
export function markWriteOnly(schema: Schema, sensitive: readonly (readonly string[])[]): Schema {
  return sensitive.reduce<Schema>((s, path) => mark(s, path, 0) as Schema, schema)
}
