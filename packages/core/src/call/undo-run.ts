import { isRunResult, ok, TOOL_FAILED } from '../tool/result.ts'
import type { Reports } from '../tool/threw.ts'
import type { ToolResult } from '../types.ts'

/**
 * Runs the restorer a call registered (taken from the undo store, so used once): what it returns
 * becomes the result (`ok(value)` unless it is a result already); a throw reports `tool_threw` and
 * answers `error "Tool failed"`.
 */
export async function runUndo(tm: Reports, restore: () => unknown, callId: string): Promise<ToolResult> {
  try {
    const out = await restore()
    if (out === undefined) return ok()
    return isRunResult(out) ? out : ok(out)
  } catch (err) {
    tm.report('tool_threw', 'An undo restorer threw', { callId, cause: err })
    return TOOL_FAILED
  }
}
