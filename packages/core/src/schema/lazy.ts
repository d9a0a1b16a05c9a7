/**
 * Validation of tools declared with only a plain `jsonSchema` (no Standard Schema `input`), without
 * putting the `fromJsonSchema` compiler in every bundle.
 *
 * - With a compiler (`createToolmark({ fromJsonSchema })`), the schema is compiled when the tool is
 *   registered: an invalid schema throws its `TypeError` from `register`, and every call validates
 *   synchronously.
 * - Without one, registration starts loading `json-schema.ts` (through `compiler-chunk.ts`, a separate
 *   chunk for bundlers) and calls made before it arrives wait for it on the asynchronous validation
 *   path, bounded by the call's signal and deadline like any asynchronous validator. Once it is loaded (by any registry),
 *   later registrations compile at once. An invalid schema is then not thrown at registration: it is
 *   reported once, as soon as it is compiled (`onInvalid`: the registry's `schema_conversion_failed`
 *   event, after the registration has finished), and each call answers `error "Tool failed"` with a
 *   `tool_threw` event carrying the `TypeError`. A failed load is retried by the next call.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { onDemand } from '../on-demand.ts'
import type { JsonSchema } from '../types.ts'
import type { Validate } from './compiled-validator.ts'

/** Turns a JSON Schema into a Standard Schema (`fromJsonSchema` from `@toolmark/core`). */
export type JsonSchemaCompiler = (schema: JsonSchema) => StandardSchemaV1

type Compiler = typeof import('./compiler-chunk.ts')

const compiler = onDemand<Compiler>(() => import('./compiler-chunk.ts'))

/**
 * A validator for `schema`: compiled now with `compile` (throws for an invalid schema), else on load;
 * `onInvalid` hears once, on a later microtask, that the loaded compiler rejected the schema.
 */
export function jsonSchemaValidator(
  schema: JsonSchema,
  compile: JsonSchemaCompiler | undefined,
  onInvalid?: (err: unknown) => void,
): Validate {
  if (compile) return bind(compile(schema))
  let ready: Validate | undefined
  /** Loads the compiler (again after a failed load) and compiles `schema` once. */
  const load = (): Promise<Validate> =>
    compiler.load().then((m) => (ready ??= m.compiledValidator(schema, onInvalid)))
  if (compiler.value) ready = compiler.value.compiledValidator(schema, onInvalid)
  else load().catch(() => {})
  return (value) => (ready ? ready(value) : load().then((validate) => validate(value)))
}

function bind(schema: StandardSchemaV1): Validate {
  return (value) => schema['~standard'].validate(value)
}
