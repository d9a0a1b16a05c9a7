import { TOOL_FAILED } from '../call/result.ts'
import type { Entry } from '../registry/entry.ts'
import type { ToolResult } from '../types.ts'
import type { ConfirmHost } from './host.ts'

/** Reports a throwing tool hook (`tool_threw`) and answers `error "Tool failed"`. */
export function threw(
  tm: Pick<ConfirmHost, 'report'>,
  entry: Entry,
  callId: string | undefined,
  what: string,
  err: unknown,
): ToolResult {
  tm.report('tool_threw', `The ${what} of "${entry.name}" threw`, {
    tool: entry.name,
    ...(callId === undefined ? {} : { callId }),
    cause: err,
  })
  return TOOL_FAILED
}
