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
 * Nothing here mutates its arguments or throws for bad input.
 */
import { REENTER_SENSITIVE } from '../codes.ts'
import { ANY_INDEX, arrayIndex, childKeys, copyObject, isPlainObject, parsePath } from '../schema/paths.ts'
import type { FieldChange, Issue } from '../types.ts'

/** The placeholder that stands for a sensitive value in confirmation payloads. */
export const REDACTED = '[redacted]'

/** A tool's `sensitivePaths` as declared: a list, a function returning one, or nothing. */
export type SensitivePathsSource = readonly string[] | undefined | (() => readonly string[])

/** The result of reading a tool's sensitive paths once (see `readSensitivePaths`). */
export class SensitivePatterns {
  /** False when the list could not be read: everything is then treated as sensitive. */
  readonly readable: boolean
  /** The patterns as declared (empty when unreadable). */
  readonly paths: readonly string[]
  /** `paths` parsed by `parsePath` (`['cards', '[]', 'cvc']`). */
  readonly segments: readonly (readonly string[])[]

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

/** What `restoreRedacted` returns. */
export type RestoreResult = { ok: true; value: unknown } | { ok: false; issues: Issue[] }

/** A pattern and how many of its segments the walk has matched so far. */
type Cursor = readonly [segments: readonly string[], at: number]
interface Step {
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

function rootStep(patterns: SensitivePatterns): Step {
  let hit = false
  const next: Cursor[] = []
  for (const segments of patterns.segments) {
    if (segments.length === 0) hit = true
    else next.push([segments, 0])
  }
  return { hit, next }
}

/** Advances every cursor over `key`; `[]` matches only when `isIndex` (an array element). */
function step(active: readonly Cursor[], key: string, isIndex: boolean): Step {
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
function mustRedact(value: unknown, hit: boolean, active: readonly Cursor[], ancestors: unknown[]): boolean {
  if (value === undefined) return false
  if (hit) return true
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return false
  if (Array.isArray(value) || isPlainObject(value)) return ancestors.includes(value)
  return active.length > 0
}

/** Sets an own data property, also for the key `__proto__` (never the prototype). */
function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  } else {
    ;(target as Record<string, unknown>)[key] = value
  }
}

interface RedactContext {
  ancestors: unknown[]
  /** Current position; only tracked when `redacted` collects paths. */
  trail: string[]
  redacted: string[] | undefined
}

function redactNode(value: unknown, hit: boolean, active: readonly Cursor[], ctx: RedactContext): unknown {
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

/**
 * Redacts `ctx.confirm` / `needs_confirmation` changes. A change whose path is at or below a
 * sensitive path (`cards.0.cvc` under `cards[].cvc`) gets `'[redacted]'` for `before` and
 * `after`; a change of an ancestor (`cards`, `cards.0`) keeps its values as deep copies with each
 * sensitive descendant inside redacted. Absent (or `undefined`) `before`/`after` stay so. A change
 * with a malformed path, and every change when the sensitive paths cannot be read, is redacted
 * whole. Entries that are not objects are dropped. Returns new change objects; never mutates.
 */
export function redactChanges(
  changes: readonly FieldChange[],
  sensitivePaths: SensitivePathsSource | SensitivePatterns,
): FieldChange[] {
  if (!Array.isArray(changes)) return []
  const patterns = readSensitivePaths(sensitivePaths)
  const root = rootStep(patterns)
  const out: FieldChange[] = []
  for (const change of changes as readonly unknown[]) {
    if (typeof change !== 'object' || change === null) continue
    const c = change as FieldChange
    let { hit, next } = root
    let segments: readonly string[] = [ANY_INDEX]
    try {
      segments = parsePath(c.path)
    } catch {}
    // Unreadable patterns, a malformed path or a wildcard in it: redact the change whole.
    if (!patterns.readable || segments.includes(ANY_INDEX)) hit = true
    for (const segment of segments) {
      if (!hit) ({ hit, next } = step(next, segment, arrayIndex(segment) >= 0))
    }
    const redacted: FieldChange = { ...c }
    const ctx: RedactContext = { ancestors: [], trail: [], redacted: undefined }
    if (Object.hasOwn(c, 'before')) redacted.before = redactNode(c.before, hit, next, ctx)
    if (Object.hasOwn(c, 'after')) redacted.after = redactNode(c.after, hit, next, ctx)
    out.push(redacted)
  }
  return out
}

interface RestoreContext {
  readable: boolean
  issues: Issue[]
  trail: string[]
  editedAncestors: unknown[]
  originalAncestors: unknown[]
}

/**
 * Restores an approver's edit of a redacted input before it is validated.
 *
 * Each `'[redacted]'` in `edited` that sits where `redactInput(original)` put one gets the real
 * value from `original`, provided every array on its way has the same length as in `original` and
 * each enclosing row's non-sensitive values are unchanged (so a row deleted, inserted, reordered or
 * edited gets nothing restored), and every object on its way is still an object. A sensitive value
 * the approver changed keeps the new value. Every other `'[redacted]'` (outside the sensitive
 * paths, in a changed row, under a key the approver restructured or inside a sensitive value they
 * replaced, or anywhere when the sensitive paths cannot be read) is reported as
 * `{ path, message: 'Re-enter sensitive field' }` at its dot path; all such issues are collected.
 * Only the exact string `'[redacted]'` is a placeholder. Values are compared with `===` (`NaN`
 * equals `NaN`); an own property holding `undefined` counts as absent. Never mutates: the result
 * shares unchanged parts with `edited` and restored values with `original`. Cyclic references in
 * `edited` are not followed.
 */
export function restoreRedacted(
  edited: unknown,
  original: unknown,
  sensitivePaths: SensitivePathsSource | SensitivePatterns,
): RestoreResult {
  const patterns = readSensitivePaths(sensitivePaths)
  const root = rootStep(patterns)
  const ctx: RestoreContext = {
    readable: patterns.readable,
    issues: [],
    trail: [],
    editedAncestors: [],
    originalAncestors: [],
  }
  const value = restoreNode(edited, original, true, root, ctx)
  return ctx.issues.length > 0 ? { ok: false, issues: ctx.issues } : { ok: true, value }
}

function restoreNode(
  edited: unknown,
  original: unknown,
  aligned: boolean,
  at: Step,
  ctx: RestoreContext,
): unknown {
  const { hit, next: active } = at
  if (edited === REDACTED) {
    const sent = original === REDACTED || mustRedact(original, hit, active, ctx.originalAncestors)
    if (ctx.readable && aligned && sent) return original
    ctx.issues.push({ path: ctx.trail.join('.'), message: REENTER_SENSITIVE })
    return edited
  }
  const keys = childKeys(edited)
  if (!keys || ctx.editedAncestors.includes(edited)) return edited
  const source = edited as Record<string, unknown>
  const isArray = Array.isArray(edited)
  // The original's children line up only below an object of the same kind the approver saw.
  const orig =
    aligned && ctx.readable && !hit && sameKind(edited, original) && !ctx.originalAncestors.includes(original)
      ? (original as Record<string, unknown>)
      : undefined
  ctx.editedAncestors.push(edited)
  if (orig) ctx.originalAncestors.push(orig)
  let out: object | undefined
  for (const key of keys) {
    const s = step(active, key, isArray)
    const has = orig !== undefined && (isArray || Object.hasOwn(orig, key))
    const row = has ? orig[key] : undefined
    // An array row lines up only when its non-sensitive values are unchanged.
    const rowAligned =
      has && (!isArray || s.hit || sameOutsideSensitive(source[key], row, s.next, ctx.originalAncestors))
    ctx.trail.push(key)
    const value = restoreNode(source[key], row, rowAligned, s, ctx)
    ctx.trail.pop()
    if (value !== source[key]) {
      out ??= isArray ? (edited as unknown[]).slice() : copyObject(source)
      setOwn(out, key, value)
    }
  }
  ctx.editedAncestors.pop()
  if (orig) ctx.originalAncestors.pop()
  return out ?? edited
}

/** True for two arrays of the same length, or two plain objects. */
function sameKind(edited: unknown, original: unknown): boolean {
  return Array.isArray(edited)
    ? Array.isArray(original) && original.length === edited.length
    : isPlainObject(edited) && isPlainObject(original)
}

/**
 * True when `edited` equals `original` everywhere except at sensitive positions (which the approver
 * may change) and values the payload hid as a whole. Used to decide whether an array row is still
 * the same row.
 */
function sameOutsideSensitive(
  edited: unknown,
  original: unknown,
  active: readonly Cursor[],
  ancestors: unknown[],
): boolean {
  if (mustRedact(original, false, active, ancestors)) return true
  const keys = childKeys(original)
  if (!keys) return edited === original || (Number.isNaN(edited) && Number.isNaN(original))
  if (!sameKind(edited, original)) return false
  const e = edited as Record<string, unknown>
  const o = original as Record<string, unknown>
  const isArray = Array.isArray(original)
  ancestors.push(original)
  const same =
    keys.every((key) => {
      const s = step(active, key, isArray)
      return (
        s.hit || sameOutsideSensitive(Object.hasOwn(e, key) ? e[key] : undefined, o[key], s.next, ancestors)
      )
    }) &&
    Object.keys(e).every(
      (key) => Object.hasOwn(o, key) || e[key] === undefined || step(active, key, isArray).hit,
    )
  ancestors.pop()
  return same
}
