import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from '../types.ts'
import { fromJsonSchema } from './json-schema.ts'

/** Validates one value: synchronously once compiled, else a promise (see lazy.ts). */
export type Validate = (
  value: unknown,
) => StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>

/**
 * The validator of `schema` once the compiler is here, compiled now: an invalid schema is told to
 * `onInvalid` once, on a later microtask, and its validator throws that error on every call.
 */
export function compiledValidator(schema: JsonSchema, onInvalid?: (err: unknown) => void): Validate {
  try {
    const compiled = fromJsonSchema(schema)
    return (value) => compiled['~standard'].validate(value)
  } catch (err) {
    if (onInvalid) queueMicrotask(() => onInvalid(err))
    return () => {
      throw err
    }
  }
}
