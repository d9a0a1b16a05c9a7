/**
 * `redactChanges`, the changes a confirmation card shows with their sensitive values redacted (the
 * rules are in `redact.ts`). A module of its own: a page whose tools never confirm does not load it
 * unless an add-on imports it from `@toolmark/core/adapter`.
 */
import { ANY_INDEX, arrayIndex, parsePath } from '../schema/paths.ts'
import type { FieldChange } from '../types.ts'
import {
  type RedactContext,
  readSensitivePaths,
  redactNode,
  rootStep,
  type SensitivePathsSource,
  type SensitivePatterns,
  step,
} from './redact.ts'

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
