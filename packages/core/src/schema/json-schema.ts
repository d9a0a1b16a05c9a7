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
type Obj = Record<string, unknown>
/** The values a type-specific keyword applies to. */
interface Kinds {
  object: Obj
  array: unknown[]
  string: string
  number: number
}

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
  if (!isObject(schema)) throw new TypeError('Invalid JSON Schema: expected an object')
  const check = compile(schema, '#', { root: schema, refs: new Map() })
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

interface Compiler {
  root: Obj
  refs: Map<string, Check>
}

function fail(at: string, problem: string): TypeError {
  return new TypeError(`Invalid JSON Schema at ${at}: ${problem}`)
}

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const IS_TYPE: Record<TypeName, (value: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  number: Number.isFinite,
  integer: Number.isInteger,
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
}

/** Reports `message` at `path` (plus `key`, for a property or item). */
function add(issues: MutableIssue[], path: PropertyKey[], message: string, ...key: PropertyKey[]): void {
  issues.push({ message, path: [...path, ...key] })
}

/** Runs `check` on a child value at `path` + `key`. */
function descend(
  check: Check,
  value: unknown,
  key: PropertyKey,
  path: PropertyKey[],
  issues: MutableIssue[],
) {
  path.push(key)
  check(value, path, issues)
  path.pop()
}

/** A check for one kind of value only (`minLength` ignores numbers); `test` returns a message to report. */
function rule<K extends keyof Kinds>(kind: K, test: (value: Kinds[K]) => string | false | undefined): Check {
  const is = IS_TYPE[kind]
  return (v, p, i) => {
    const message = is(v) && test(v as Kinds[K])
    if (message) add(i, p, message)
  }
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

/** Deep equality with one of `values`, for `enum` and `const` (`NaN` equals `NaN`, `-0` equals `0`). */
function equalsOneOf(values: unknown[]): (value: unknown) => boolean {
  const primitives = new Set<unknown>()
  const structured = new Set<string>()
  const structuredValue = (v: unknown) => typeof v === 'object' && v !== null
  for (const v of values) {
    if (structuredValue(v)) structured.add(canonical(v))
    else primitives.add(v)
  }
  return (v) => (structuredValue(v) ? structured.has(canonical(v)) : primitives.has(v))
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

function num(schema: Obj, key: string, at: string): number | undefined {
  const n = schema[key]
  if (n === undefined || typeof n === 'boolean') return undefined
  if (!Number.isFinite(n)) throw fail(`${at}/${key}`, 'expected a number')
  return n as number
}

function schemaList(value: unknown, at: string, c: Compiler): Check[] {
  if (!Array.isArray(value) || value.length === 0) throw fail(at, 'expected a non-empty array of schemas')
  return value.map((s, i) => compile(s, `${at}/${i}`, c))
}

/** `properties`/`patternProperties`: each entry's key and compiled schema. */
function schemaMap(value: unknown, at: string, c: Compiler): [string, Check][] {
  if (value === undefined) return []
  if (!isObject(value)) throw fail(at, 'expected an object')
  return Object.keys(value).map((k) => [k, compile(value[k], `${at}/${k}`, c)])
}

/** Runs `check` and returns the issues it found, without reporting them. */
function issuesOf(check: Check, value: unknown, path: PropertyKey[]): MutableIssue[] {
  const inner: MutableIssue[] = []
  check(value, path, inner)
  return inner
}

/** `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`: message and test. */
const NUMERIC: [string, string, (value: number, bound: number) => boolean][] = [
  ['minimum', 'a number >=', (v, b) => v < b],
  ['maximum', 'a number <=', (v, b) => v > b],
  ['exclusiveMinimum', 'a number >', (v, b) => v <= b],
  ['exclusiveMaximum', 'a number <', (v, b) => v >= b],
  ['multipleOf', 'a multiple of', (v, b) => !isMultiple(v, b)],
]

/** Exact for an integer step (`%` is exact); within a few ulps for a fractional one (`0.3` of `0.1`). */
function isMultiple(value: number, step: number): boolean {
  if (Number.isInteger(step)) return Number.isInteger(value) && value % step === 0
  const q = value / step
  return Math.abs(q - Math.round(q)) <= Math.max(1, Math.abs(q)) * Number.EPSILON * 4
}

/** Number of characters (code points) of a string. */
function codePoints(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

function compile(schema: unknown, at: string, c: Compiler): Check {
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
  /** `min<suffix>`/`max<suffix>` for one kind: "Expected at least 3 characters". */
  const sizes = <K extends keyof Kinds>(
    kind: K,
    suffix: string,
    size: (v: Kinds[K]) => number,
    noun: string,
  ) => {
    for (const most of [false, true]) {
      const key = `${most ? 'max' : 'min'}${suffix}`
      const n = schema[key]
      if (n === undefined) continue
      if (!Number.isInteger(n) || (n as number) < 0)
        throw fail(`${at}/${key}`, 'expected a non-negative integer')
      const bound = `Expected at ${most ? 'most' : 'least'} ${n} ${n === 1 ? noun : noun.replace(/y$/, 'ie') + 's'}`
      checks.push(rule(kind, (v) => (most ? size(v) > (n as number) : size(v) < (n as number)) && bound))
    }
  }

  if (schema.$ref !== undefined) checks.push(ref(schema.$ref, `${at}/$ref`, c))
  if (schema.enum !== undefined) {
    const values = schema.enum
    if (!Array.isArray(values) || values.length === 0) throw fail(`${at}/enum`, 'expected a non-empty array')
    const shown = values.slice(0, 10).map((v) => JSON.stringify(v))
    checks.push(
      test(equalsOneOf(values), `Expected one of: ${shown.join(', ')}${values.length > 10 ? ', ...' : ''}`),
    )
  }
  if (Object.hasOwn(schema, 'const')) {
    checks.push(
      test(equalsOneOf([schema.const]), `Expected ${JSON.stringify(schema.const) ?? String(schema.const)}`),
    )
  }

  // Strings.
  sizes('string', 'Length', codePoints, 'character')
  if (schema.pattern !== undefined) {
    const pattern = regex(schema.pattern, `${at}/pattern`)
    checks.push(rule('string', (v) => !pattern.test(v) && `Expected a string matching /${pattern.source}/`))
  }

  // Numbers. Draft-04: boolean exclusiveMinimum/exclusiveMaximum make minimum/maximum exclusive.
  const bounds = NUMERIC.map(([key]) => num(schema, key, at))
  if ((bounds[4] ?? 1) <= 0) throw fail(`${at}/multipleOf`, 'expected a number > 0')
  if (schema.exclusiveMinimum === true) [bounds[2], bounds[0]] = [bounds[0], undefined]
  if (schema.exclusiveMaximum === true) [bounds[3], bounds[1]] = [bounds[1], undefined]
  for (const [k, [, text, fails]] of NUMERIC.entries()) {
    const bound = bounds[k]
    if (bound !== undefined)
      checks.push(rule('number', (v) => fails(v, bound) && `Expected ${text} ${bound}`))
  }

  // Arrays: items as a schema, or a tuple (`prefixItems`, or draft-07's `items` list) and the rest.
  sizes('array', 'Items', (v) => v.length, 'item')
  const { uniqueItems } = schema
  if (uniqueItems !== undefined && typeof uniqueItems !== 'boolean') {
    throw fail(`${at}/uniqueItems`, 'expected a boolean')
  }
  const tuple = schema.prefixItems !== undefined ? 'prefixItems' : Array.isArray(schema.items) ? 'items' : ''
  const restKey = tuple === 'items' ? 'additionalItems' : 'items'
  const prefix = tuple ? schemaList(schema[tuple], `${at}/${tuple}`, c) : []
  const rest = schema[restKey] === undefined ? undefined : compile(schema[restKey], `${at}/${restKey}`, c)
  if (prefix.length > 0 || rest) {
    checks.push((v, p, i) => {
      if (!Array.isArray(v)) return
      for (let k = 0; k < v.length; k++) {
        const check = prefix[k] ?? rest
        if (!check) break
        descend(check, v[k], k, p, i)
      }
    })
  }
  if (uniqueItems) {
    checks.push(
      rule('array', (v) => {
        const seen = new Map<string, number>()
        for (let k = 0; k < v.length; k++) {
          const key = canonical(v[k])
          const first = seen.get(key)
          if (first !== undefined) return `Expected unique items (items ${first} and ${k} are equal)`
          seen.set(key, k)
        }
      }),
    )
  }

  // Objects.
  const { required, additionalProperties: extra } = schema
  const props = schemaMap(schema.properties, `${at}/properties`, c)
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))) {
    throw fail(`${at}/required`, 'expected an array of strings')
  }
  const patterns = schemaMap(schema.patternProperties, `${at}/patternProperties`, c).map(
    ([k, check]) => [regex(k, `${at}/patternProperties`), check] as const,
  )
  const known = new Set(props.map(([k]) => k))
  const needed = (required as string[] | undefined) ?? []
  const others: Check | undefined =
    extra === undefined || extra === true
      ? undefined
      : extra === false
        ? (_v, p, i) => add(i, p, 'Unknown property')
        : compile(extra, `${at}/additionalProperties`, c)
  if (props.length > 0 || needed.length > 0 || patterns.length > 0 || others) {
    checks.push((v, p, i) => {
      if (!isObject(v)) return
      for (const key of needed) {
        if (v[key] === undefined || !Object.hasOwn(v, key)) add(i, p, 'Missing required property', key)
      }
      for (const [key, check] of props) {
        const value = v[key]
        if (value !== undefined && Object.hasOwn(v, key)) descend(check, value, key, p, i)
      }
      if (patterns.length === 0 && !others) return
      for (const key of Object.keys(v)) {
        const value = v[key]
        if (value === undefined) continue
        let matched = known.has(key)
        for (const [re, check] of patterns) {
          if (!re.test(key)) continue
          matched = true
          descend(check, value, key, p, i)
        }
        if (!matched && others) descend(others, value, key, p, i)
      }
    })
  }
  sizes('object', 'Properties', (v) => Object.keys(v).filter((k) => v[k] !== undefined).length, 'property')

  // Combinators.
  if (schema.allOf !== undefined) checks.push(...schemaList(schema.allOf, `${at}/allOf`, c))
  if (schema.anyOf !== undefined) checks.push(unionCheck(schema.anyOf, `${at}/anyOf`, c, false))
  if (schema.oneOf !== undefined) checks.push(unionCheck(schema.oneOf, `${at}/oneOf`, c, true))
  if (schema.not !== undefined) {
    const not = compile(schema.not, `${at}/not`, c)
    checks.push((v, p, i) => {
      if (issuesOf(not, v, p).length === 0) add(i, p, 'Value matches a schema it must not match')
    })
  }

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

/** A check that reports `message` when `matches` is false. */
function test(matches: (value: unknown) => boolean, message: string): Check {
  return (v, p, i) => {
    if (!matches(v)) add(i, p, message)
  }
}

function resolvePointer(ref: string, at: string, root: unknown): unknown {
  const text = JSON.stringify(ref)
  if (ref !== '#' && !ref.startsWith('#/'))
    throw fail(at, `unsupported $ref ${text} (only local #/... pointers)`)
  let target = root
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key)) {
      throw fail(at, `$ref ${text} does not resolve`)
    }
    target = (target as Obj)[key]
  }
  return target
}

/** A `$ref`, compiled once per pointer; the returned check defers to it, so recursion works. */
function ref(value: unknown, at: string, c: Compiler): Check {
  if (typeof value !== 'string') throw fail(at, 'expected a string')
  let check = c.refs.get(value)
  if (!check) {
    let target = NOOP
    check = (v, p, i) => target(v, p, i)
    c.refs.set(value, check)
    target = compile(resolvePointer(value, at, c.root), value, c)
  }
  return check
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
      const inner = issuesOf(branch, v, p)
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
    if (matches > 1) add(i, p, 'Value matches more than one schema in oneOf')
    else if (matches === 0) {
      if (best) i.push(...best)
      else add(i, p, summary)
    }
  }
}

/** Rejects `$ref`/`allOf`/`anyOf`/`oneOf`/`not` chains that come back to a schema without descending. */
function assertNoLoop(root: Obj): void {
  const done = new Set<Obj>()
  const active = new Set<Obj>()
  const queue: unknown[] = [root]
  const visit = (schema: unknown): void => {
    if (!isObject(schema) || done.has(schema)) return
    if (active.has(schema))
      throw new TypeError('Invalid JSON Schema: a $ref loop never descends into the value')
    active.add(schema)
    if (typeof schema.$ref === 'string') visit(resolvePointer(schema.$ref, '$ref', root))
    for (const s of [schema.allOf, schema.anyOf, schema.oneOf, schema.not].flat()) visit(s)
    active.delete(schema)
    done.add(schema)
    queue.push(
      ...[schema.items, schema.additionalItems, schema.additionalProperties, schema.prefixItems].flat(),
    )
    for (const map of [schema.properties, schema.patternProperties]) {
      if (isObject(map)) queue.push(...Object.values(map))
    }
  }
  while (queue.length > 0) visit(queue.pop())
}
