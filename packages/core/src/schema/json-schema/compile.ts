/**
 * The dispatcher: a boolean schema, or `type` first and then each keyword family in a fixed order
 * (so issues come out in the same order every time). A failing `type` reports one issue and skips
 * the rest of that schema.
 */
import { arrays } from './arrays.ts'
import {
  add,
  type Check,
  type Compile,
  fail,
  IS_TYPE,
  isObject,
  NOOP,
  type Obj,
  TYPES,
  type TypeName,
} from './check.ts'
import { combinators } from './combinators.ts'
import { numbers } from './numbers.ts'
import { objects } from './objects.ts'
import { refs } from './refs.ts'
import { strings } from './strings.ts'
import { values } from './values.ts'

/** Compiles `root` (an object schema) into one check; throws a `TypeError` for an invalid schema. */
export function compileRoot(root: Obj): Check {
  const families = [refs(root), values, strings, numbers, arrays, objects, combinators]
  const compile: Compile = (schema, at) => {
    if (schema === true) return NOOP
    if (schema === false) return (_v, p, i) => add(i, p, 'No value is allowed here')
    if (!isObject(schema)) throw fail(at, 'expected a schema object or boolean')
    const types = schema.type === undefined ? undefined : ([schema.type].flat() as TypeName[])
    for (const t of types ?? []) {
      if (!TYPES.includes(t)) {
        throw fail(`${at}/type`, `unknown type ${JSON.stringify(t)} (expected one of ${TYPES.join(', ')})`)
      }
    }
    const checks: Check[] = []
    for (const family of families) family(schema, at, checks, compile)
    const body: Check =
      checks.length > 1
        ? (v, p, i) => {
            for (const check of checks) check(v, p, i)
          }
        : (checks[0] ?? NOOP)
    if (!types) return body
    const message = `Expected ${types.join(' or ')}`
    return (v, p, i) => {
      if (types.some((t) => IS_TYPE[t](v))) body(v, p, i)
      else add(i, p, message)
    }
  }
  return compile(root, '#')
}
