import { DEFAULT_MAX_MESSAGE_BYTES, MAX_DEPTH } from './messages.ts'

/** Limits for `boundedCopy`. */
export interface BoundedCopyLimits {
  /** Largest accepted UTF-8 byte length of the copy's JSON text. Default 1048576. */
  maxBytes?: number
  /** Deepest accepted object/array nesting; the root object is depth 1. Default 64. */
  maxDepth?: number
}

/** Outcome of `boundedCopy`. `bytes` is the exact UTF-8 length of `JSON.stringify(value)`. */
export type BoundedCopyResult =
  | { ok: true; value: unknown; bytes: number }
  | { ok: false; reason: 'too_large' | 'too_deep' | 'not_json' }

type Reason = 'too_large' | 'too_deep' | 'not_json'

interface State {
  bytes: number
  /** Properties and elements visited, dropped ones included: bounds work on hostile shapes. */
  visited: number
  maxBytes: number
  maxDepth: number
  reason: Reason | undefined
}

const FAIL = Symbol('fail')
/** Marks an object property that JSON drops (undefined, function, symbol). */
const SKIP = Symbol('skip')

/** Strings made only of printable ASCII other than `"` and `\` are their length + 2 bytes in JSON. */
const NEEDS_SCAN = /[^\x20\x21\x23-\x5b\x5d-\x7e]/

/**
 * Deep-copy an inbound value into plain JSON data in one pass, measuring the exact UTF-8 byte
 * length of `JSON.stringify(copy)` and stopping as soon as a limit is exceeded.
 *
 * - Reads each own enumerable string-keyed property exactly once (`Object.keys`, then one read):
 *   a getter runs once and its value is copied as data; prototypes, symbol keys, non-enumerable
 *   properties, proxies and class instances do not survive (a Date or Map becomes a plain object of
 *   its own enumerable properties, usually `{}`). `toJSON` is not honoured: it is a function, so
 *   it is dropped like any other.
 * - JSON semantics otherwise: `undefined`, function and symbol properties are dropped (`null` in
 *   arrays); `NaN` and `±Infinity` become `null`; a `bigint` anywhere, or an `undefined`, function
 *   or symbol root, is `not_json`; a throwing getter or proxy trap is `not_json`.
 * - An own `__proto__` key is copied as an ordinary data property (as `JSON.parse` creates it);
 *   nothing's prototype changes.
 * - Work is bounded by `maxBytes` (dropped properties count too), so shared references (a DAG of
 *   huge logical size) and cycles cannot explode time or memory: cycles end as `too_deep` or
 *   `too_large`. The first limit reached decides the reason.
 *
 * Never throws.
 */
export function boundedCopy(value: unknown, limits?: BoundedCopyLimits): BoundedCopyResult {
  const state: State = {
    bytes: 0,
    visited: 0,
    maxBytes: limits?.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxDepth: limits?.maxDepth ?? MAX_DEPTH,
    reason: undefined,
  }
  let copy: unknown
  try {
    copy = copyValue(value, 0, state)
  } catch {
    return { ok: false, reason: 'not_json' }
  }
  if (copy === FAIL) return { ok: false, reason: state.reason ?? 'not_json' }
  if (copy === SKIP) return { ok: false, reason: 'not_json' }
  return { ok: true, value: copy, bytes: state.bytes }
}

function fail(state: State, reason: Reason): typeof FAIL {
  state.reason = reason
  return FAIL
}

/** Adds `n` bytes; false once the total exceeds the limit. */
function add(state: State, n: number): boolean {
  state.bytes += n
  return state.bytes <= state.maxBytes
}

function copyValue(value: unknown, depth: number, state: State): unknown {
  switch (typeof value) {
    case 'string':
      return addString(state, value) ? value : fail(state, 'too_large')
    case 'number':
      if (!Number.isFinite(value)) return add(state, 4) ? null : fail(state, 'too_large')
      return add(state, numberBytes(value)) ? value : fail(state, 'too_large')
    case 'boolean':
      return add(state, value ? 4 : 5) ? value : fail(state, 'too_large')
    case 'object':
      if (value === null) return add(state, 4) ? null : fail(state, 'too_large')
      if (depth + 1 > state.maxDepth) return fail(state, 'too_deep')
      return Array.isArray(value) ? copyArray(value, depth + 1, state) : copyObject(value, depth + 1, state)
    case 'bigint':
      return fail(state, 'not_json')
    default:
      // undefined, function, symbol: dropped from objects, null in arrays, not_json at the root.
      return SKIP
  }
}

function copyArray(source: readonly unknown[], depth: number, state: State): unknown {
  const length = source.length
  state.visited += length
  // `[` `]` and one comma between elements; each element adds at least one more byte.
  if (!add(state, length === 0 ? 2 : length + 1) || state.bytes + length > state.maxBytes) {
    return fail(state, 'too_large')
  }
  const out: unknown[] = new Array(length)
  for (let i = 0; i < length; i++) {
    let item = copyValue(source[i], depth, state)
    if (item === FAIL) return FAIL
    if (item === SKIP) {
      item = null
      if (!add(state, 4)) return fail(state, 'too_large')
    }
    out[i] = item
  }
  return out
}

function copyObject(source: object, depth: number, state: State): unknown {
  const keys = Object.keys(source)
  state.visited += keys.length
  if (state.visited > state.maxBytes || !add(state, 2)) return fail(state, 'too_large')
  const out: Record<string, unknown> = {}
  let first = true
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    const item = copyValue((source as Record<string, unknown>)[key], depth, state)
    if (item === FAIL) return FAIL
    if (item === SKIP) continue
    // `"key":` plus a comma before every entry but the first.
    if (!addString(state, key) || !add(state, first ? 1 : 2)) return fail(state, 'too_large')
    first = false
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true })
    } else {
      out[key] = item
    }
  }
  return out
}

/** Adds the JSON byte length of `text` as a quoted, escaped string; false once over the limit. */
function addString(state: State, text: string): boolean {
  const n = text.length
  // Every UTF-16 unit costs at least one byte, so an oversized string is rejected unscanned.
  if (state.bytes + n + 2 > state.maxBytes) return add(state, n + 2)
  return add(state, n < 64 || NEEDS_SCAN.test(text) ? jsonStringBytes(text) : n + 2)
}

/** The UTF-8 byte length of `JSON.stringify(text)` (quotes and escapes included). */
export function jsonStringBytes(text: string): number {
  const n = text.length
  let bytes = n + 2
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) {
      if (c < 0x20) {
        // \b \t \n \f \r take 2 bytes, other control characters \u00XX take 6.
        bytes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5
      } else if (c === 0x22 || c === 0x5c) {
        bytes += 1
      }
    } else if (c < 0x800) {
      bytes += 1
    } else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        bytes += 2 // a surrogate pair: 4 bytes for 2 units
        i++
      } else {
        bytes += 5 // a lone surrogate is escaped as \uXXXX
      }
    } else {
      bytes += 2
    }
  }
  return bytes
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

/** Decimal digits of an integer 0 <= a < 1e16. */
function digitCount(a: number): number {
  let digits = 1
  while (digits < 16 && a >= (POW10[digits] as number)) digits++
  return digits
}

/**
 * Length of `JSON.stringify(n)` for a finite number (ASCII, so bytes = characters), without
 * building the string in the common cases: integers below 1e15, and decimals in [1e-6, 1e9) with
 * at most 6 fraction digits. There `m = round(|n| * 10^k)` is exact (|n| * 10^k < 2^50), and the
 * smallest k with `m / 10^k === |n|` is the fraction length of the shortest round-trip form that
 * Number#toString prints. Anything else falls back to `String(n).length`.
 */
function numberBytes(n: number): number {
  const sign = n < 0 ? 1 : 0
  const a = n < 0 ? -n : n
  if (Number.isInteger(a)) return a < 1e15 ? sign + digitCount(a) : String(n).length
  if (a >= 1e-6 && a < 1e9) {
    for (let k = 1; k <= 6; k++) {
      const p = POW10[k] as number
      if (Math.round(a * p) / p === a) return sign + (a >= 1 ? digitCount(Math.floor(a)) + 1 + k : 2 + k)
    }
  }
  return String(n).length
}
