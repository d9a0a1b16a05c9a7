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
    switch (typeof value) {
      case 'object':
        if (value === null) {
          copy = null
          state.bytes = 4
        } else {
          copy = copyNested(value, 0, state)
        }
        break
      case 'string':
        copy = value
        state.bytes = stringBytes(value, state.maxBytes)
        if (state.bytes < 0) return { ok: false, reason: 'too_large' }
        break
      case 'number':
        copy = Number.isFinite(value) ? value : null
        state.bytes = copy === null ? 4 : numberBytes(value)
        break
      case 'boolean':
        copy = value
        state.bytes = value ? 4 : 5
        break
      default:
        // undefined, function, symbol: JSON.stringify yields no text; bigint: it throws.
        return { ok: false, reason: 'not_json' }
    }
  } catch {
    return { ok: false, reason: 'not_json' }
  }
  if (copy === FAIL) return { ok: false, reason: state.reason ?? 'not_json' }
  if (state.bytes > state.maxBytes) return { ok: false, reason: 'too_large' }
  return { ok: true, value: copy, bytes: state.bytes }
}

function fail(state: State, reason: Reason): typeof FAIL {
  state.reason = reason
  return FAIL
}

/** Copies an object or array at `depth + 1`, adding its bytes to `state.bytes`. */
function copyNested(value: object, depth: number, state: State): unknown {
  if (depth >= state.maxDepth) return fail(state, 'too_deep')
  return Array.isArray(value) ? copyArray(value, depth + 1, state) : copyObject(value, depth + 1, state)
}

function copyArray(source: readonly unknown[], depth: number, state: State): unknown {
  const length = source.length
  const max = state.maxBytes
  state.visited += length
  // `[` `]`, a comma between elements, and at least one byte per element.
  let bytes = state.bytes + (length === 0 ? 2 : length + 1)
  if (bytes + length > max) return fail(state, 'too_large')
  const out: unknown[] = new Array(length)
  for (let i = 0; i < length; i++) {
    let v = source[i]
    switch (typeof v) {
      case 'string': {
        const b = stringBytes(v, max - bytes)
        if (b < 0) return fail(state, 'too_large')
        bytes += b
        break
      }
      case 'number':
        if (v - v === 0) bytes += numberBytes(v)
        else {
          v = null
          bytes += 4
        }
        break
      case 'boolean':
        bytes += v ? 4 : 5
        break
      case 'object':
        if (v === null) bytes += 4
        else {
          state.bytes = bytes
          v = copyNested(v, depth, state)
          if (v === FAIL) return FAIL
          bytes = state.bytes
        }
        break
      case 'bigint':
        return fail(state, 'not_json')
      default:
        // undefined, function, symbol (and holes): null, as in JSON.
        v = null
        bytes += 4
    }
    if (bytes > max) return fail(state, 'too_large')
    out[i] = v
  }
  state.bytes = bytes
  return out
}

function copyObject(source: object, depth: number, state: State): unknown {
  const keys = Object.keys(source)
  const n = keys.length
  const max = state.maxBytes
  state.visited += n
  let bytes = state.bytes + 2
  if (state.visited > max || bytes > max) return fail(state, 'too_large')
  const out: Record<string, unknown> = {}
  let first = true
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string
    let v = (source as Record<string, unknown>)[key]
    switch (typeof v) {
      case 'string': {
        const b = stringBytes(v, max - bytes)
        if (b < 0) return fail(state, 'too_large')
        bytes += b
        break
      }
      case 'number':
        if (v - v === 0) bytes += numberBytes(v)
        else {
          v = null
          bytes += 4
        }
        break
      case 'boolean':
        bytes += v ? 4 : 5
        break
      case 'object':
        if (v === null) bytes += 4
        else {
          state.bytes = bytes
          v = copyNested(v, depth, state)
          if (v === FAIL) return FAIL
          bytes = state.bytes
        }
        break
      case 'bigint':
        return fail(state, 'not_json')
      default:
        continue // undefined, function, symbol: dropped, as in JSON
    }
    // `"key":` plus a comma before every entry but the first.
    const k = stringBytes(key, max - bytes)
    if (k < 0) return fail(state, 'too_large')
    bytes += k + (first ? 1 : 2)
    if (bytes > max) return fail(state, 'too_large')
    first = false
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
    } else {
      out[key] = v
    }
  }
  state.bytes = bytes
  return out
}

/**
 * The JSON byte length of `text` as a quoted, escaped string, or -1 when it cannot fit in
 * `room` bytes (every UTF-16 unit costs at least one byte, so such strings are not scanned).
 */
function stringBytes(text: string, room: number): number {
  const n = text.length
  if (n + 2 > room) return -1
  return n < 64 || NEEDS_SCAN.test(text) ? jsonStringBytes(text) : n + 2
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
