/**
 * `fromJsonSchema`: a JSON Schema (draft 2020-12 subset) as a Standard Schema, for tools declared
 * with a plain `jsonSchema` and for server-declared tools.
 *
 * Enforced keywords:
 * - any value: `type` (a name or a list of `object`, `array`, `string`, `number`, `integer`,
 *   `boolean`, `null`), `enum`, `const`, `anyOf`, `oneOf` (exactly one branch), `allOf`, `not`,
 *   `$ref` to a local JSON pointer (`#`, `#/$defs/name`, `#/definitions/name`; recursion allowed).
 * - strings: `minLength`, `maxLength` (in code points), `pattern` (ECMAScript regex, unanchored).
 * - numbers: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or draft-04
 *   booleans), `multipleOf` (exact for an integer step; within a few ulps for a fractional one, so `0.3` is a
 *   multiple of `0.1`).
 * - arrays: `items` (a schema, or draft-07's list with `additionalItems`), `prefixItems`,
 *   `minItems`, `maxItems`, `uniqueItems`.
 * - objects: `properties`, `required`, `additionalProperties` (boolean or schema),
 *   `patternProperties`, `minProperties`, `maxProperties`.
 *
 * Ignored: annotations (`title`, `description`, `default`, `examples`, `deprecated`, `readOnly`,
 * `writeOnly`, `$comment`, `$schema`, `$id`, `$anchor`), `format` (not enforced), content keywords,
 * and these assertions, which are NOT checked: `if`/`then`/`else`, `dependentRequired`,
 * `dependentSchemas`, `dependencies`, `propertyNames`, `contains`, `minContains`, `maxContains`,
 * `unevaluatedProperties`, `unevaluatedItems`, `$dynamicRef`, `$recursiveRef` and remote `$ref`s
 * (the last throws). Express those in `run` or use a schema library.
 *
 * Semantics: validation never coerces or fills defaults; the output is the input value itself.
 * `number` and `integer` reject `NaN` and `±Infinity` (not JSON numbers). A property holding
 * `undefined` counts as absent. Objects are read through own properties only, so keys such as
 * `__proto__` are validated as plain data. Type keywords apply to their type only (`minLength`
 * ignores numbers); a failing `type` reports one issue and skips the rest of that schema. When no
 * `anyOf`/`oneOf` branch matches, the issues of the closest branch are reported (the one with the
 * fewest issues that accepted the value's type), else one "Expected ..." issue at the union's path.
 *
 * The schema is checked and compiled into closures once, at creation (one file per keyword family
 * in `json-schema/`, dispatched by `json-schema/compile.ts`); an invalid schema (unknown
 * type name, malformed keyword value, bad regex, unresolvable `$ref`, a `$ref`/`allOf`/`anyOf`/
 * `oneOf`/`not` loop that never descends into the value) throws a `TypeError` naming the keyword.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from '../types.ts'
import { isObject, type MutableIssue } from './json-schema/check.ts'
import { compileRoot } from './json-schema/compile.ts'
import { assertNoLoop } from './json-schema/refs.ts'

/** What `fromJsonSchema` returns: a Standard Schema that also hands back its JSON Schema. */
export type JsonSchemaValidator<T = unknown> = StandardSchemaV1<unknown, T> & StandardJSONSchemaV1<unknown, T>

/**
 * Compiles `schema` (see the module comment for the supported subset) into a synchronous Standard
 * Schema validator with vendor `'toolmark'`; `~standard.jsonSchema.input()`/`.output()` return
 * `schema` as given, whatever the target. Issues read `{ message, path }` with English messages
 * ("Expected string", "Missing required property", "Unknown property", ...). Throws a `TypeError`
 * for an invalid schema.
 */
export function fromJsonSchema<T = unknown>(schema: JsonSchema): JsonSchemaValidator<T> {
  if (!isObject(schema)) throw new TypeError('Invalid JSON Schema: expected an object')
  const check = compileRoot(schema)
  assertNoLoop(schema)
  const toJsonSchema = (): Record<string, unknown> => schema
  return {
    '~standard': {
      version: 1,
      vendor: 'toolmark',
      validate(value: unknown): StandardSchemaV1.Result<T> {
        // A path and an issue list per call: calls stay independent, also re-entrant ones (getters).
        const issues: MutableIssue[] = []
        check(value, [], issues)
        return issues.length > 0 ? { issues } : { value: value as T }
      },
      jsonSchema: { input: toJsonSchema, output: toJsonSchema },
    },
  }
}
