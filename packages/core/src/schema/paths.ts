/**
 * Dot paths into plain data (`cards.0.cvc`), shared by validation issues, confirmation changes,
 * sensitive-path redaction and form fills.
 *
 * Grammar. A path is `''` (the root) or segments joined by `.`. A segment is a key (any characters
 * except `.`, `[` and `]`), optionally followed by one or more `[]`, or `[]` on its own. Array
 * elements are addressed by their decimal index (`cards.0`, no leading zeros). `[]` is a wildcard
 * that matches any array index and is only allowed in patterns (`matchesPath`, `coversPath`,
 * sensitive paths): `cards[].cvc` and `cards.[].cvc` are the same pattern, `grid[][]` reads
 * "any row of any row of grid".
 *
 * Rejected with `ToolmarkError('invalid_path')`: a non-string path, an empty segment (`a..b`, `.a`,
 * `a.`), a bracket anywhere but a trailing `[]`, and the segments `__proto__`, `constructor` and
 * `prototype`, so a path can never reach an object's prototype.
 *
 * Only plain objects (prototype `Object.prototype` or `null`) and arrays are walked; every other
 * value (Date, Map, class instances, functions) is a leaf. A key containing `.` or brackets cannot
 * be addressed.
 */
import { ToolmarkError } from '../errors.ts'

/** The segment `parsePath` returns for `[]`: it matches any array index. */
export const ANY_INDEX = '[]'

const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])
const ROOT: readonly string[] = /* @__PURE__ */ Object.freeze([])
const CACHE_LIMIT = 512
const cache = new Map<string, readonly string[]>()

/** A `ToolmarkError('invalid_path')` reading "Invalid path "a..b": <problem>". */
function invalidPath(path: unknown, problem: string): ToolmarkError {
  const shown = typeof path === 'string' ? JSON.stringify(path) : typeof path
  return new ToolmarkError('invalid_path', `Invalid path ${shown}: ${problem}`)
}

/**
 * Splits a path into segments (`'cards[].cvc'` → `['cards', '[]', 'cvc']`; `''` → `[]`). The result
 * is frozen and cached, so repeated paths cost a map lookup. Throws `ToolmarkError('invalid_path')`
 * for a malformed or unsafe path.
 */
export function parsePath(path: string): readonly string[] {
  if (typeof path !== 'string') throw invalidPath(path, 'not a string')
  const hit = cache.get(path)
  if (hit !== undefined) return hit
  const segments = path === '' ? ROOT : Object.freeze(splitPath(path))
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string)
  cache.set(path, segments)
  return segments
}

function splitPath(path: string): string[] {
  const out: string[] = []
  for (const part of path.split('.')) {
    // A key (no `.`, `[` or `]`), then any number of `[]`.
    const [, name, wildcards] = /^([^[\]]*)((?:\[\])*)$/.exec(part) ?? []
    if (name === undefined || wildcards === undefined) {
      throw invalidPath(path, 'unexpected bracket (write cards.0.cvc or cards[].cvc)')
    }
    if (part === '') throw invalidPath(path, 'empty segment')
    if (UNSAFE_KEYS.has(name)) throw invalidPath(path, `unsafe segment "${name}"`)
    if (name !== '') out.push(name)
    for (let i = 0; i < wildcards.length; i += 2) out.push(ANY_INDEX)
  }
  return out
}

/** Like `parsePath`, but rejects `[]`: getters and setters need a concrete path. */
function parseConcretePath(path: string): readonly string[] {
  const segments = parsePath(path)
  if (segments.includes(ANY_INDEX)) throw invalidPath(path, 'wildcard [] is only allowed in patterns')
  return segments
}

/** The array index a segment denotes (`'0'` → 0, `'12'` → 12), or -1 (`'01'`, `'-1'`, `'a'`). */
export function arrayIndex(segment: string): number {
  return /^(0|[1-9]\d{0,9})$/.test(segment) && +segment < 4294967295 ? +segment : -1
}

/** True for `{}`-style objects (prototype `Object.prototype` or `null`), the only objects paths walk. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** The keys a walk visits below `value` (each index as a string for an array); `undefined` for a leaf. */
export function childKeys(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return Array.from(value, (_, i) => String(i))
  return isPlainObject(value) ? Object.keys(value) : undefined
}

/**
 * The value at `path` in `obj`, or `undefined` when any step is missing or is not a plain object
 * or array. Reads own properties only. `getPath(obj, '')` is `obj`.
 */
export function getPath(obj: unknown, path: string): unknown {
  let current = obj
  for (const segment of parseConcretePath(path)) {
    const container = Array.isArray(current) ? arrayIndex(segment) >= 0 : isPlainObject(current)
    if (!container || !Object.hasOwn(current as object, segment)) return undefined
    current = (current as Record<string, unknown>)[segment]
  }
  return current
}

/**
 * Returns a copy of `obj` with `value` at `path`; `obj` is never mutated. Only the objects and arrays
 * along the path are copied (shallowly); everything else is shared with `obj`. A missing or `null`
 * step becomes an array when the next segment is an index, else an object. Throws
 * `ToolmarkError('invalid_path')` for a malformed path, a step that is neither a plain object nor an
 * array, a non-index segment into an array, or an index past the end of an array (appending at
 * `length` is allowed). `setPath(obj, '', value)` returns `value`. The result's type is not checked
 * against `value`.
 */
export function setPath<T>(obj: T, path: string, value: unknown): T {
  const segments = parseConcretePath(path)
  const setAt = (current: unknown, at: number): unknown => {
    const segment = segments[at]
    if (segment === undefined) return value
    const index = arrayIndex(segment)
    const container = current ?? (index >= 0 ? [] : {})
    let copy: Record<string, unknown>
    if (Array.isArray(container)) {
      if (index < 0 || index > container.length) {
        throw invalidPath(path, `"${segment}" is not an index of the array (length ${container.length})`)
      }
      copy = container.slice() as unknown as Record<string, unknown>
    } else if (isPlainObject(container)) {
      copy = copyObject(container)
    } else {
      throw invalidPath(path, `"${segment}" is not inside an object or array`)
    }
    copy[segment] = setAt(Object.hasOwn(container, segment) ? copy[segment] : undefined, at + 1)
    return copy
  }
  return setAt(obj, 0) as T
}

/** A shallow copy of a plain object that keeps a `null` prototype and copies `__proto__` keys as data. */
export function copyObject(source: Record<string, unknown>): Record<string, unknown> {
  return Object.getPrototypeOf(source) === null ? Object.assign(Object.create(null), source) : { ...source }
}

/** One leaf of `flatten`. */
export interface PathValue {
  path: string
  value: unknown
}

/**
 * Every leaf of `obj` with its dot path, depth first in key order: `{ cards: [{ cvc: '1' }] }` →
 * `[{ path: 'cards.0.cvc', value: '1' }]`. Leaves are values that are not plain objects or arrays,
 * plus empty objects and arrays (so nothing is lost); a non-container root is one leaf at `''`.
 * Throws `ToolmarkError('invalid_path')` for a key that no path can address (empty, containing
 * `.`, `[` or `]`, or `__proto__`/`constructor`/`prototype`) and for a cyclic structure.
 */
export function flatten(obj: unknown): PathValue[] {
  const out: PathValue[] = []
  const ancestors: unknown[] = []
  const walk = (value: unknown, path: string): void => {
    const keys = childKeys(value)
    if (!keys?.length) {
      out.push({ path, value })
      return
    }
    if (ancestors.includes(value)) throw invalidPath(path, 'cyclic reference')
    ancestors.push(value)
    for (const key of keys) {
      if (!/^[^.[\]]+$/.test(key) || UNSAFE_KEYS.has(key)) {
        throw invalidPath(path, `key ${JSON.stringify(key)} cannot be written as a path`)
      }
      walk((value as Record<string, unknown>)[key], path === '' ? key : `${path}.${key}`)
    }
    ancestors.pop()
  }
  walk(obj, '')
  return out
}

/** True when pattern segment `p` matches concrete segment `s` (`[]` matches any array index). */
export function segmentMatches(p: string, s: string): boolean {
  return p === s || (p === ANY_INDEX && arrayIndex(s) >= 0)
}

/**
 * True when the concrete `path` is exactly what `pattern` names, `[]` in the pattern matching any
 * array index: `matchesPath('cards[].cvc', 'cards.3.cvc')` is true, `'cards.3'` or
 * `'cards.3.cvc.x'` are not (see `coversPath`). Throws `ToolmarkError('invalid_path')` for a
 * malformed pattern or path, or a `[]` in `path`.
 */
export function matchesPath(pattern: string, path: string): boolean {
  const p = parsePath(pattern)
  const s = parseConcretePath(path)
  return p.length === s.length && prefixMatches(p, s)
}

/**
 * True when the concrete `path` is at or below what `pattern` names:
 * `coversPath('cards[].cvc', 'cards.0.cvc')` and `coversPath('card', 'card.number')` are true,
 * `coversPath('cards[].cvc', 'cards.0')` is false. Throws like `matchesPath`.
 */
export function coversPath(pattern: string, path: string): boolean {
  const p = parsePath(pattern)
  const s = parseConcretePath(path)
  return p.length <= s.length && prefixMatches(p, s)
}

function prefixMatches(pattern: readonly string[], path: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (!segmentMatches(pattern[i] as string, path[i] as string)) return false
  }
  return true
}
