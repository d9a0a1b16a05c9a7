import type { ErrorEventCode } from '../codes.ts'
import type { ToolmarkErrorEvent, ToolResult } from '../types.ts'
import type { Entry } from './entry.ts'
import { TOOL_FAILED } from './result.ts'

/** Whatever emits `error` events (the registry's reporter). */
export interface Reports {
  /** Emits an `error` event. */
  report(code: ErrorEventCode, message: string, extra?: Partial<ToolmarkErrorEvent>): void
}

/** Reports a throwing tool hook (`tool_threw`) and answers `error "Tool failed"`. */
export function threw(
  tm: Reports,
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
