/** Keywords for any value: `enum` and `const`, compared by deep equality. */
import { add, type Check, type Family, fail, isObject } from './check.ts'

/** A canonical text for deep equality (`enum`, `const`, `uniqueItems`); object keys are sorted. */
export function canonical(value: unknown): string {
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

/** A check that reports `message` when `matches` is false. */
function test(matches: (value: unknown) => boolean, message: string): Check {
  return (v, p, i) => {
    if (!matches(v)) add(i, p, message)
  }
}

/** `enum` (its first ten values shown in the message) and `const`. */
export const values: Family = (schema, at, checks) => {
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
}
