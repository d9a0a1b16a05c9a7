/**
 * Confirmation redaction (sensitive values stay out of confirmation payloads; see docs/guides/confirmations.md, Sensitive values).
 *
 * - `redactInput` builds what the user sees: a deep copy of the input with `'[redacted]'` at every
 *   sensitive path that holds a value, or `'[redacted]'` for the whole input when the tool's
 *   sensitive paths cannot be read.
 * - `redactChanges` does the same for `FieldChange`s: a change at or below a sensitive path has its
 *   `before`/`after` redacted; a change of an ancestor keeps its value with each sensitive
 *   descendant inside redacted.
 * - `restoreRedacted` turns an approver's edit of that copy back into real input: each
 *   `'[redacted]'` the approver left where it was sent gets the real value back, only onto the same
 *   array row; every other `'[redacted]'` is refused with "Re-enter sensitive field".
 *
 * Sensitive paths are patterns in the `paths.ts` grammar (`card.cvc`, `cards[].cvc`,
 * `orders[].cards[].cvc`; `[]` matches any array index, `''` is the whole input). The list "cannot
 * be read" when the `sensitivePaths` function throws or returns a non-array, or any entry is not a
 * string or not a valid path.
 *
 * Only plain objects and arrays are walked. Fail-closed cases, all redacted as a whole: another
 * object (Date, Map, class instance, function) where a sensitive pattern continues below it, and a
 * cyclic reference. A property or element holding `undefined` does not exist (nothing to hide).
 * Nothing here mutates its arguments or throws for bad input. `redactChanges` lives in
 * `redact-changes.ts` and `restoreRedacted` in `redact-edit.ts`, loaded only with confirmations.
 */
import { ANY_INDEX, childKeys, isPlainObject, parsePath } from '../schema/paths.ts'

/** The placeholder that stands for a sensitive value in confirmation payloads. */
export const REDACTED = '[redacted]'

/** A tool's `sensitivePaths` as declared: a list, a function returning one, or nothing. */
export type SensitivePathsSource = readonly string[] | undefined | (() => readonly string[])

/** The result of reading a tool's sensitive paths once (see `readSensitivePaths`). */
export class SensitivePatterns {
  // Fields the constructor assigns are `declare`d: no field declaration in the published code.
  /** False when the list could not be read: everything is then treated as sensitive. */
  declare readonly readable: boolean
  /** The patterns as declared (empty when unreadable). */
  declare readonly paths: readonly string[]
  /** `paths` parsed by `parsePath` (`['cards', '[]', 'cvc']`). */
  declare readonly segments: readonly (readonly string[])[]

  /** Prefer `readSensitivePaths`, which parses and never throws. */
  constructor(readable: boolean, paths: readonly string[], segments: readonly (readonly string[])[]) {
    this.readable = readable
    this.paths = paths
    this.segments = segments
    Object.freeze(this)
  }
}

/** What `redactInput` returns. */
export interface RedactedInput {
  /** A deep copy of the input with `'[redacted]'` at sensitive paths. */
  value: unknown
  /** False when the sensitive paths could not be read (then `value` is `'[redacted]'`). */
  readable: boolean
  /** The concrete dot paths that now hold the placeholder (`['cards.0.cvc']`; `['']` for the whole input). */
  redactedPaths: string[]
}

/** A pattern and how many of its segments the walk has matched so far. */
export type Cursor = readonly [segments: readonly string[], at: number]
export interface Step {
  /** Some pattern ends exactly here: the value is sensitive. */
  hit: boolean
  /** Patterns that continue below this value. */
  next: readonly Cursor[]
}

const NO_STEP: Step = { hit: false, next: [] }
const UNREADABLE = /* @__PURE__ */ new SensitivePatterns(false, /* @__PURE__ */ Object.freeze([]), [])
const NONE = /* @__PURE__ */ new SensitivePatterns(true, /* @__PURE__ */ Object.freeze([]), [])

/**
 * Reads a tool's sensitive paths once (calling the function form) and parses them. Never throws:
 * a throwing function, a non-array, or an entry that is not a valid path gives
 * `{ readable: false, paths: [] }`. `undefined` means no sensitive paths. The other functions in
 * this module accept the result, so one call can be reused for the input and its changes.
 */
export function readSensitivePaths(source: SensitivePathsSource | SensitivePatterns): SensitivePatterns {
  if (source instanceof SensitivePatterns) return source
  if (source === undefined) return NONE
  try {
    const list: unknown = typeof source === 'function' ? source() : source
    if (!Array.isArray(list)) return UNREADABLE
    const paths: string[] = []
    const segments: (readonly string[])[] = []
    for (const path of list) {
      if (typeof path !== 'string') return UNREADABLE
      segments.push(parsePath(path))
      paths.push(path)
    }
    return new SensitivePatterns(true, paths, segments)
  } catch {
    return UNREADABLE
  }
}

export function rootStep(patterns: SensitivePatterns): Step {
  let hit = false
  const next: Cursor[] = []
  for (const segments of patterns.segments) {
    if (segments.length === 0) hit = true
    else next.push([segments, 0])
  }
  return { hit, next }
}

/** Advances every cursor over `key`; `[]` matches only when `isIndex` (an array element). */
export function step(active: readonly Cursor[], key: string, isIndex: boolean): Step {
  if (active.length === 0) return NO_STEP
  let hit = false
  const next: Cursor[] = []
  for (const [segments, at] of active) {
    const p = segments[at] as string
    if (p === ANY_INDEX ? isIndex : p === key) {
      if (at + 1 === segments.length) hit = true
      else next.push([segments, at + 1])
    }
  }
  return hit || next.length > 0 ? { hit, next } : NO_STEP
}

/**
 * True when the payload shows `'[redacted]'` instead of `value`: a sensitive value that exists,
 * a non-walkable object with patterns continuing below it, or a cyclic reference.
 */
export function mustRedact(
  value: unknown,
  hit: boolean,
  active: readonly Cursor[],
  ancestors: unknown[],
): boolean {
  if (value === undefined) return false
  if (hit) return true
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return false
  if (Array.isArray(value) || isPlainObject(value)) return ancestors.includes(value)
  return active.length > 0
}

/** Sets an own data property, also for the key `__proto__` (never the prototype). */
export function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else {
    ;(target as Record<string, unknown>)[key] = value
  }
}

export interface RedactContext {
  ancestors: unknown[]
  /** Current position; only tracked when `redacted` collects paths. */
  trail: string[]
  redacted: string[] | undefined
}

export function redactNode(
  value: unknown,
  hit: boolean,
  active: readonly Cursor[],
  ctx: RedactContext,
): unknown {
  if (mustRedact(value, hit, active, ctx.ancestors)) {
    ctx.redacted?.push(ctx.trail.join('.'))
    return REDACTED
  }
  const keys = childKeys(value)
  if (!keys) return value
  const source = value as Record<string, unknown>
  const isArray = Array.isArray(value)
  const out: object = isArray
    ? new Array(keys.length)
    : Object.getPrototypeOf(value) === null
      ? Object.create(null)
      : {}
  ctx.ancestors.push(value)
  for (const key of keys) {
    const s = step(active, key, isArray)
    ctx.trail.push(key)
    setOwn(out, key, redactNode(source[key], s.hit, s.next, ctx))
    ctx.trail.pop()
  }
  ctx.ancestors.pop()
  return out
}

/**
 * A deep copy of `input` (plain objects and arrays; other values are shared) with `'[redacted]'`
 * at every sensitive path that holds a value, for `ConfirmRequest.input`,
 * `PendingConfirmation.input` and `tm.state()`. When the sensitive paths cannot be read, `value`
 * is `'[redacted]'` and `readable` is false. Never mutates `input`, never throws.
 */
export function redactInput(
  input: unknown,
  sensitivePaths: SensitivePathsSource | SensitivePatterns,
): RedactedInput {
  const patterns = readSensitivePaths(sensitivePaths)
  if (!patterns.readable) return { value: REDACTED, readable: false, redactedPaths: [''] }
  const root = rootStep(patterns)
  const ctx: RedactContext = { ancestors: [], trail: [], redacted: [] }
  const value = redactNode(input, root.hit, root.next, ctx)
  return { value, readable: true, redactedPaths: ctx.redacted ?? [] }
}

/** `value` as an event or a consumer may see it: redacted at `sensitivePaths`, as is without any. */
export function redactedValue(value: unknown, sensitivePaths: SensitivePathsSource): unknown {
  return sensitivePaths === undefined ? value : redactInput(value, sensitivePaths).value
}
