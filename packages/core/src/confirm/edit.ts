import { toIssues } from '../schema/validate.ts'
import type { Entry } from '../tool/entry.ts'
import { restoreRedacted } from '../tool/redact-edit.ts'
import type { Issue } from '../types.ts'

/**
 * Restores `'[redacted]'` placeholders from the real input, then validates the approver's edit.
 * Returns the validated value or the `invalid` issues.
 */
export async function acceptEdit(
  entry: Entry,
  edited: unknown,
  original: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; issues: Issue[] }> {
  const restored = restoreRedacted(edited, original, entry.def.sensitivePaths)
  if (!restored.ok) return restored
  if (!entry.validate) return { ok: true, value: restored.value }
  const r = await entry.validate(restored.value)
  return r.issues ? { ok: false, issues: toIssues(r.issues) } : { ok: true, value: r.value }
}
