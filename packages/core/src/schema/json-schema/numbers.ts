/** Number keywords: bounds (draft-04's boolean exclusive bounds too) and `multipleOf`. */
import { type Family, fail, type Obj, rule } from './check.ts'

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

/** A numeric keyword's value; a boolean (draft-04 exclusive bound) reads as absent here. */
function num(schema: Obj, key: string, at: string): number | undefined {
  const n = schema[key]
  if (n === undefined || typeof n === 'boolean') return undefined
  if (!Number.isFinite(n)) throw fail(`${at}/${key}`, 'expected a number')
  return n as number
}

export const numbers: Family = (schema, at, checks) => {
  const bounds = NUMERIC.map(([key]) => num(schema, key, at))
  if ((bounds[4] ?? 1) <= 0) throw fail(`${at}/multipleOf`, 'expected a number > 0')
  // Draft-04: a boolean exclusiveMinimum/exclusiveMaximum makes minimum/maximum exclusive.
  if (schema.exclusiveMinimum === true) [bounds[2], bounds[0]] = [bounds[0], undefined]
  if (schema.exclusiveMaximum === true) [bounds[3], bounds[1]] = [bounds[1], undefined]
  for (const [k, [, text, fails]] of NUMERIC.entries()) {
    const bound = bounds[k]
    if (bound !== undefined)
      checks.push(rule('number', (v) => fails(v, bound) && `Expected ${text} ${bound}`))
  }
}
