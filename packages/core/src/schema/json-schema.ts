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
 * The schema is checked and compiled into closures once, at creation; an invalid schema (unknown
 * type name, malformed keyword value, bad regex, unresolvable `$ref`, a `$ref`/`allOf`/`anyOf`/
 * `oneOf`/`not` loop that never descends into the value) throws a `TypeError` naming the keyword.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from '../types.ts'

/** What `fromJsonSchema` returns: a Standard Schema that also hands back its JSON Schema. */
export type JsonSchemaValidator<T = unknown> = StandardSchemaV1<unknown, T> & StandardJSONSchemaV1<unknown, T>

interface MutableIssue {
  message: string
  path: PropertyKey[]
}
type Check = (value: unknown, path: PropertyKey[], issues: MutableIssue[]) => void

const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const
type TypeName = (typeof TYPES)[number]

const NOOP: Check = () => {}

/**
 * Compiles `schema` (see the module comment for the supported subset) into a synchronous Standard
 * Schema validator with vendor `'toolmark'`; `~standard.jsonSchema.input()`/`.output()` return
 * `schema` as given, whatever the target. Issues read `{ message, path }` with English messages
 * ("Expected string", "Missing required property", "Unknown property", ...). Throws a `TypeError`
 * for an invalid schema.
 */
export function fromJsonSchema<T = unknown>(schema: JsonSchema): JsonSchemaValidator<T> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new TypeError('Invalid JSON Schema: expected an object')
  }
  const compiler: Compiler = { root: schema, refs: new Map() }
  const check = compile(schema, '#', compiler)
  assertNoLoop(schema, compiler)
  const toJsonSchema = (): Record<string, unknown> => schema
  const path: PropertyKey[] = []
  const buffer: MutableIssue[] = []
  let busy = false
  const run = (value: unknown, p: PropertyKey[], issues: MutableIssue[]): StandardSchemaV1.Result<T> => {
    check(value, p, issues)
    if (issues.length === 0) return { value: value as T }
    const out = issues.slice()
    issues.length = 0
    return { issues: out }
  }
  return {
    '~standard': {
      version: 1,
      vendor: 'toolmark',
      validate(value: unknown): StandardSchemaV1.Result<T> {
        // One path and issue buffer per validator; a re-entrant call (a getter in the value) gets its own.
        // If a check throws (stack overflow on absurdly deep data), busy stays set: later calls allocate.
        if (busy) return run(value, [], [])
        busy = true
        const result = run(value, path, buffer)
        busy = false
        return result
      },
      jsonSchema: { input: toJsonSchema, output: toJsonSchema },
    },
  }
}

interface Compiler {
  root: JsonSchema
  refs: Map<string, { check: Check }>
}

function fail(at: string, problem: string): TypeError {
  return new TypeError(`Invalid JSON Schema at ${at}: ${problem}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`
}

const IS_TYPE: Record<TypeName, (value: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: Number.isInteger,
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
}

/** A canonical text for deep equality (`enum`, `const`, `uniqueItems`); object keys are sorted. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`
  }
  if (typeof value === 'number') return String(value === 0 ? 0 : value)
  if (typeof value === 'bigint') return `${value}n`
  return JSON.stringify(value) ?? String(typeof value)
}

function codePoints(text: string): number {
  let n = text.length
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

function regex(source: unknown, at: string): RegExp {
  if (typeof source !== 'string') throw fail(at, 'expected a string')
  try {
    return new RegExp(source, 'u')
  } catch {
    try {
      return new RegExp(source)
    } catch {
      throw fail(at, `invalid regular expression ${JSON.stringify(source)}`)
    }
  }
}

function count0(schema: Record<string, unknown>, key: string, at: string): number | undefined {
  const n = schema[key]
  if (n === undefined) return undefined
  if (!Number.isInteger(n) || (n as number) < 0) throw fail(`${at}/${key}`, 'expected a non-negative integer')
  return n as number
}

function num(schema: Record<string, unknown>, key: string, at: string): number | undefined {
  const n = schema[key]
  if (n === undefined || typeof n === 'boolean') return undefined
  if (typeof n !== 'number' || !Number.isFinite(n)) throw fail(`${at}/${key}`, 'expected a number')
  return n
}

function schemaList(value: unknown, at: string, c: Compiler): Check[] {
  if (!Array.isArray(value) || value.length === 0) throw fail(at, 'expected a non-empty array of schemas')
  return value.map((s, i) => compile(s, `${at}/${i}`, c))
}

function compile(schema: unknown, at: string, c: Compiler): Check {
  if (schema === true) return NOOP
  if (schema === false) {
    return (_v, path, issues) => {
      issues.push({ message: 'No value is allowed here', path: path.slice() })
    }
  }
  if (!isObject(schema)) throw fail(at, 'expected a schema object or boolean')
  const checks: Check[] = []
  let types: TypeName[] | undefined
  if (schema.type !== undefined) {
    const list: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type]
    for (const t of list) {
      if (!TYPES.includes(t as TypeName)) {
        throw fail(`${at}/type`, `unknown type ${JSON.stringify(t)} (expected one of ${TYPES.join(', ')})`)
      }
    }
    types = list as TypeName[]
  }
  if (schema.$ref !== undefined) checks.push(ref(schema.$ref, `${at}/$ref`, c))
  if (schema.enum !== undefined) checks.push(enumCheck(schema.enum, `${at}/enum`))
  if (Object.hasOwn(schema, 'const')) checks.push(constCheck(schema.const))
  const string = stringCheck(schema, at)
  if (string) checks.push(string)
  const number = numberCheck(schema, at)
  if (number) checks.push(number)
  const array = arrayCheck(schema, at, c)
  if (array) checks.push(array)
  const object = objectCheck(schema, at, c)
  if (object) checks.push(object)
  if (schema.allOf !== undefined) {
    const all = schemaList(schema.allOf, `${at}/allOf`, c)
    checks.push((v, p, i) => {
      for (const check of all) check(v, p, i)
    })
  }
  if (schema.anyOf !== undefined) checks.push(unionCheck(schema.anyOf, `${at}/anyOf`, c, false))
  if (schema.oneOf !== undefined) checks.push(unionCheck(schema.oneOf, `${at}/oneOf`, c, true))
  if (schema.not !== undefined) {
    const not = compile(schema.not, `${at}/not`, c)
    checks.push((v, p, i) => {
      const inner: MutableIssue[] = []
      not(v, p, inner)
      if (inner.length === 0) i.push({ message: 'Value matches a schema it must not match', path: p.slice() })
    })
  }
  const typeMessage = types && `Expected ${types.join(' or ')}`
  const body: Check =
    checks.length === 0
      ? NOOP
      : checks.length === 1
        ? (checks[0] as Check)
        : (v, p, i) => {
            for (const check of checks) check(v, p, i)
          }
  if (!types) return body
  const predicates = types.map((t) => IS_TYPE[t])
  const is =
    predicates.length === 1
      ? (predicates[0] as (v: unknown) => boolean)
      : (v: unknown) => predicates.some((f) => f(v))
  return (v, p, i) => {
    if (!is(v)) {
      i.push({ message: typeMessage as string, path: p.slice() })
      return
    }
    body(v, p, i)
  }
}

function resolvePointer(ref: string, at: string, root: unknown): unknown {
  if (!ref.startsWith('#')) throw fail(at, `unsupported $ref ${JSON.stringify(ref)} (only local #/... refs)`)
  let target = root
  if (ref.length > 1) {
    if (ref[1] !== '/') throw fail(at, `unsupported $ref ${JSON.stringify(ref)} (only JSON pointers)`)
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
      if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key)) {
        throw fail(at, `$ref ${JSON.stringify(ref)} does not resolve`)
      }
      target = (target as Record<string, unknown>)[key]
    }
  }
  return target
}

function ref(value: unknown, at: string, c: Compiler): Check {
  if (typeof value !== 'string') throw fail(at, 'expected a string')
  let holder = c.refs.get(value)
  if (!holder) {
    holder = { check: NOOP }
    c.refs.set(value, holder)
    holder.check = compile(resolvePointer(value, at, c.root), value, c)
  }
  const target = holder
  return (v, p, i) => target.check(v, p, i)
}

function enumCheck(values: unknown, at: string): Check {
  if (!Array.isArray(values) || values.length === 0) throw fail(at, 'expected a non-empty array')
  const primitives = new Set<unknown>()
  const structured = new Set<string>()
  for (const v of values) {
    if (typeof v === 'object' && v !== null) structured.add(canonical(v))
    else primitives.add(v)
  }
  const shown = values.slice(0, 10).map((v) => JSON.stringify(v))
  const message = `Expected one of: ${shown.join(', ')}${values.length > 10 ? ', ...' : ''}`
  return (v, p, i) => {
    const hit = typeof v === 'object' && v !== null ? structured.has(canonical(v)) : primitives.has(v)
    if (!hit) i.push({ message, path: p.slice() })
  }
}

function constCheck(expected: unknown): Check {
  const message = `Expected ${JSON.stringify(expected) ?? String(expected)}`
  if (typeof expected !== 'object' || expected === null) {
    return (v, p, i) => {
      if (v !== expected && !(Number.isNaN(v) && Number.isNaN(expected))) i.push({ message, path: p.slice() })
    }
  }
  const text = canonical(expected)
  return (v, p, i) => {
    if (typeof v !== 'object' || v === null || canonical(v) !== text) i.push({ message, path: p.slice() })
  }
}

function stringCheck(schema: Record<string, unknown>, at: string): Check | undefined {
  const min = count0(schema, 'minLength', at)
  const max = count0(schema, 'maxLength', at)
  const pattern = schema.pattern === undefined ? undefined : regex(schema.pattern, `${at}/pattern`)
  if (min === undefined && max === undefined && pattern === undefined) return undefined
  const patternMessage = pattern && `Expected a string matching /${pattern.source}/`
  return (v, p, i) => {
    if (typeof v !== 'string') return
    if (min !== undefined && (v.length < min || codePoints(v) < min)) {
      i.push({ message: `Expected at least ${count(min, 'character')}`, path: p.slice() })
    }
    if (max !== undefined && v.length > max && codePoints(v) > max) {
      i.push({ message: `Expected at most ${count(max, 'character')}`, path: p.slice() })
    }
    if (pattern && !pattern.test(v)) i.push({ message: patternMessage as string, path: p.slice() })
  }
}

function numberCheck(schema: Record<string, unknown>, at: string): Check | undefined {
  let min = num(schema, 'minimum', at)
  let max = num(schema, 'maximum', at)
  let xmin = num(schema, 'exclusiveMinimum', at)
  let xmax = num(schema, 'exclusiveMaximum', at)
  const step = num(schema, 'multipleOf', at)
  if (step !== undefined && step <= 0) throw fail(`${at}/multipleOf`, 'expected a number > 0')
  // Draft-04: boolean exclusiveMinimum/exclusiveMaximum make minimum/maximum exclusive.
  if (schema.exclusiveMinimum === true && min !== undefined) [xmin, min] = [min, undefined]
  if (schema.exclusiveMaximum === true && max !== undefined) [xmax, max] = [max, undefined]
  if (
    min === undefined &&
    max === undefined &&
    xmin === undefined &&
    xmax === undefined &&
    step === undefined
  ) {
    return undefined
  }
  return (v, p, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return
    const push = (message: string) => i.push({ message, path: p.slice() })
    if (min !== undefined && v < min) push(`Expected a number >= ${min}`)
    if (max !== undefined && v > max) push(`Expected a number <= ${max}`)
    if (xmin !== undefined && v <= xmin) push(`Expected a number > ${xmin}`)
    if (xmax !== undefined && v >= xmax) push(`Expected a number < ${xmax}`)
    if (step !== undefined && !isMultiple(v, step)) push(`Expected a multiple of ${step}`)
  }
}

/** Exact for an integer step (`%` is exact); within a few ulps for a fractional one (`0.3` of `0.1`). */
function isMultiple(value: number, step: number): boolean {
  if (Number.isInteger(step)) return Number.isInteger(value) && value % step === 0
  const q = value / step
  return Math.abs(q - Math.round(q)) <= Math.max(1, Math.abs(q)) * Number.EPSILON * 4
}

function arrayCheck(schema: Record<string, unknown>, at: string, c: Compiler): Check | undefined {
  const min = count0(schema, 'minItems', at)
  const max = count0(schema, 'maxItems', at)
  if (schema.uniqueItems !== undefined && typeof schema.uniqueItems !== 'boolean') {
    throw fail(`${at}/uniqueItems`, 'expected a boolean')
  }
  const unique = schema.uniqueItems === true
  let prefix: Check[] = []
  let rest: Check | undefined
  if (schema.prefixItems !== undefined) {
    prefix = schemaList(schema.prefixItems, `${at}/prefixItems`, c)
    if (schema.items !== undefined) rest = compile(schema.items, `${at}/items`, c)
  } else if (Array.isArray(schema.items)) {
    prefix = schemaList(schema.items, `${at}/items`, c)
    if (schema.additionalItems !== undefined)
      rest = compile(schema.additionalItems, `${at}/additionalItems`, c)
  } else if (schema.items !== undefined) {
    rest = compile(schema.items, `${at}/items`, c)
  }
  if (min === undefined && max === undefined && !unique && prefix.length === 0 && rest === undefined) {
    return undefined
  }
  return (v, p, i) => {
    if (!Array.isArray(v)) return
    if (min !== undefined && v.length < min)
      i.push({ message: `Expected at least ${count(min, 'item')}`, path: p.slice() })
    if (max !== undefined && v.length > max)
      i.push({ message: `Expected at most ${count(max, 'item')}`, path: p.slice() })
    for (let k = 0; k < v.length; k++) {
      const check = k < prefix.length ? prefix[k] : rest
      if (check === undefined) break
      p.push(k)
      check(v[k], p, i)
      p.pop()
    }
    if (unique) {
      const seen = new Map<string, number>()
      for (let k = 0; k < v.length; k++) {
        const key = canonical(v[k])
        const first = seen.get(key)
        if (first !== undefined) {
          i.push({ message: `Expected unique items (items ${first} and ${k} are equal)`, path: p.slice() })
          break
        }
        seen.set(key, k)
      }
    }
  }
}

function objectCheck(schema: Record<string, unknown>, at: string, c: Compiler): Check | undefined {
  const { properties, required, additionalProperties: extra, patternProperties } = schema
  if (properties !== undefined && !isObject(properties)) throw fail(`${at}/properties`, 'expected an object')
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))) {
    throw fail(`${at}/required`, 'expected an array of strings')
  }
  if (patternProperties !== undefined && !isObject(patternProperties)) {
    throw fail(`${at}/patternProperties`, 'expected an object')
  }
  const props: [string, Check][] = properties
    ? Object.keys(properties).map((k) => [k, compile(properties[k], `${at}/properties/${k}`, c)])
    : []
  const patterns: [RegExp, Check][] = patternProperties
    ? Object.keys(patternProperties).map((k) => [
        regex(k, `${at}/patternProperties`),
        compile(patternProperties[k], `${at}/patternProperties/${k}`, c),
      ])
    : []
  const propKeys = props.map(([k]) => k)
  const propChecks = props.map(([, check]) => check)
  const known = new Set(propKeys)
  const needed = (required as string[] | undefined) ?? []
  const rest =
    extra === undefined || extra === true
      ? undefined
      : extra === false
        ? false
        : compile(extra, `${at}/additionalProperties`, c)
  const min = count0(schema, 'minProperties', at)
  const max = count0(schema, 'maxProperties', at)
  if (props.length === 0 && needed.length === 0 && patterns.length === 0 && rest === undefined) {
    if (min === undefined && max === undefined) return undefined
  }
  const scanKeys = patterns.length > 0 || rest !== undefined || min !== undefined || max !== undefined
  return (v, p, i) => {
    if (!isObject(v)) return
    for (let k = 0; k < needed.length; k++) {
      const key = needed[k] as string
      if (v[key] === undefined || !Object.hasOwn(v, key)) {
        p.push(key)
        i.push({ message: 'Missing required property', path: p.slice() })
        p.pop()
      }
    }
    for (let k = 0; k < propKeys.length; k++) {
      const key = propKeys[k] as string
      const value = v[key]
      if (value === undefined || !Object.hasOwn(v, key)) continue
      p.push(key)
      ;(propChecks[k] as Check)(value, p, i)
      p.pop()
    }
    if (!scanKeys) return
    let present = 0
    for (const key of Object.keys(v)) {
      const value = v[key]
      if (value === undefined) continue
      present++
      let matched = known.has(key)
      for (const [re, check] of patterns) {
        if (!re.test(key)) continue
        matched = true
        p.push(key)
        check(value, p, i)
        p.pop()
      }
      if (matched || rest === undefined) continue
      p.push(key)
      if (rest === false) i.push({ message: 'Unknown property', path: p.slice() })
      else rest(value, p, i)
      p.pop()
    }
    if (min !== undefined && present < min)
      i.push({ message: `Expected at least ${count(min, 'property', 'properties')}`, path: p.slice() })
    if (max !== undefined && present > max)
      i.push({ message: `Expected at most ${count(max, 'property', 'properties')}`, path: p.slice() })
  }
}

function unionCheck(value: unknown, at: string, c: Compiler, exactlyOne: boolean): Check {
  const branches = schemaList(value, at, c)
  const types = (value as unknown[]).map((s) => (isObject(s) ? s.type : undefined))
  const summary = types.every((t) => typeof t === 'string' || Array.isArray(t))
    ? `Expected ${[...new Set(types.flat())].join(' or ')}`
    : 'Value does not match any of the allowed schemas'
  return (v, p, i) => {
    let matches = 0
    let best: MutableIssue[] | undefined
    for (const branch of branches) {
      const inner: MutableIssue[] = []
      branch(v, p, inner)
      if (inner.length === 0) {
        matches++
        if (!exactlyOne || matches > 1) break
        continue
      }
      // A branch that accepted the value's shape here fails only deeper down: report the closest one.
      const depth = p.length
      if (inner.every((issue) => issue.path.length > depth) && (!best || inner.length < best.length))
        best = inner
    }
    if (matches === 1 || (matches > 1 && !exactlyOne)) return
    if (matches > 1) {
      i.push({ message: 'Value matches more than one schema in oneOf', path: p.slice() })
      return
    }
    if (best) i.push(...best)
    else i.push({ message: summary, path: p.slice() })
  }
}

/** Rejects `$ref`/`allOf`/`anyOf`/`oneOf`/`not` chains that come back to a schema without descending. */
function assertNoLoop(root: JsonSchema, c: Compiler): void {
  const done = new Set<object>()
  const active = new Set<object>()
  const queue: unknown[] = [root]
  const visit = (schema: unknown): void => {
    if (!isObject(schema) || done.has(schema)) return
    if (active.has(schema))
      throw new TypeError('Invalid JSON Schema: a $ref loop never descends into the value')
    active.add(schema)
    if (typeof schema.$ref === 'string') visit(resolvePointer(schema.$ref, '$ref', c.root))
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = schema[key]
      if (Array.isArray(list)) for (const s of list) visit(s)
    }
    visit(schema.not)
    active.delete(schema)
    done.add(schema)
    for (const key of ['items', 'additionalItems', 'additionalProperties'] as const) queue.push(schema[key])
    for (const key of ['prefixItems', 'items'] as const) {
      const list = schema[key]
      if (Array.isArray(list)) queue.push(...list)
    }
    for (const key of ['properties', 'patternProperties'] as const) {
      const map = schema[key]
      if (isObject(map)) for (const k of Object.keys(map)) queue.push(map[k])
    }
  }
  while (queue.length > 0) visit(queue.pop())
}
