/**
 * `restoreRedacted`, for an approver's edit of a redacted input (the rules are in `redact.ts`). Apart
 * from `redact.ts` so that it loads only with confirmations (`call/lazy.ts`).
 */
import { REENTER_SENSITIVE } from '../codes.ts'
import { childKeys, copyObject, isPlainObject } from '../schema/paths.ts'
import type { Issue } from '../types.ts'
import {
  type Cursor,
  mustRedact,
  REDACTED,
  readSensitivePaths,
  rootStep,
  type SensitivePathsSource,
  type SensitivePatterns,
  type Step,
  setOwn,
  step,
} from './redact.ts'

/** What `restoreRedacted` returns. */
export type RestoreResult = { ok: true; value: unknown } | { ok: false; issues: Issue[] }

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
