/** What every keyword family shares: the check signature, the compiler handle and small helpers. */

/** An issue as checks collect it; the validator hands the list out as Standard Schema issues. */
export interface MutableIssue {
  message: string
  path: PropertyKey[]
}
/** A compiled schema: reports what is wrong with `value` at `path` into `issues`. */
export type Check = (value: unknown, path: PropertyKey[], issues: MutableIssue[]) => void
export type Obj = Record<string, unknown>
/** The values a type-specific keyword applies to. */
export interface Kinds {
  object: Obj
  array: unknown[]
  string: string
  number: number
}

export const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const
export type TypeName = (typeof TYPES)[number]

/** Compiles a subschema found at `at` (handed to the families, so they do not import the dispatcher). */
export type Compile = (schema: unknown, at: string) => Check

/** One family of keywords: adds to `checks` the checks its keywords in `schema` need, in the order they run. */
export type Family = (schema: Obj, at: string, checks: Check[], compile: Compile) => void

export const NOOP: Check = () => {}

export function fail(at: string, problem: string): TypeError {
  return new TypeError(`Invalid JSON Schema at ${at}: ${problem}`)
}

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export const IS_TYPE: Record<TypeName, (value: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  number: Number.isFinite,
  integer: Number.isInteger,
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
}

/** Reports `message` at `path` (plus `key`, for a property or item). */
export function add(
  issues: MutableIssue[],
  path: PropertyKey[],
  message: string,
  ...key: PropertyKey[]
): void {
  issues.push({ message, path: [...path, ...key] })
}

/** Runs `check` on a child value at `path` + `key`. */
export function descend(
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
export function rule<K extends keyof Kinds>(
  kind: K,
  test: (value: Kinds[K]) => string | false | undefined,
): Check {
  const is = IS_TYPE[kind]
  return (v, p, i) => {
    const message = is(v) && test(v as Kinds[K])
    if (message) add(i, p, message)
  }
}

/** Runs `check` and returns the issues it found, without reporting them. */
export function issuesOf(check: Check, value: unknown, path: PropertyKey[]): MutableIssue[] {
  const inner: MutableIssue[] = []
  check(value, path, inner)
  return inner
}

/** `min<suffix>`/`max<suffix>` for one kind: "Expected at least 3 characters". */
export function sizes<K extends keyof Kinds>(
  schema: Obj,
  at: string,
  checks: Check[],
  measure: {
    readonly kind: K
    /** `Length` for `minLength`/`maxLength`. */
    readonly suffix: string
    readonly size: (v: Kinds[K]) => number
    /** What is counted, singular: `character`. */
    readonly noun: string
  },
): void {
  const { kind, suffix, size, noun } = measure
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

/** A non-empty list of subschemas (`allOf`, `anyOf`, `oneOf`, `prefixItems`), each compiled. */
export function schemaList(value: unknown, at: string, compile: Compile): Check[] {
  if (!Array.isArray(value) || value.length === 0) throw fail(at, 'expected a non-empty array of schemas')
  return value.map((s, i) => compile(s, `${at}/${i}`))
}

/** An ECMAScript regex, with the `u` flag when the source allows it. */
export function regex(source: unknown, at: string): RegExp {
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
