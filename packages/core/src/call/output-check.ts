import { OUTPUT_INVALID_MESSAGE, TOOL_FAILED_MESSAGE } from '../codes.ts'
import type { Entry } from '../tool/entry.ts'
import { error } from '../tool/result.ts'
import type { ToolResult } from '../types.ts'
import type { CallHost } from './host.ts'

/**
 * Checks an `ok` result of a tool with an output schema (loaded on demand, like confirmations): the
 * result when its data conforms, else `error` "Output does not match the tool's output schema" with
 * an `output_invalid` event; a validator that throws or rejects gives `error` "Tool failed" and
 * `tool_threw`. An asynchronous validator is awaited. `settle` is called exactly once.
 */
export function checkOutput(
  tm: CallHost,
  entry: Entry,
  result: ToolResult & { status: 'ok' },
  call: { readonly callId: string },
  settle: (result: ToolResult) => void,
): void {
  const name = entry.name
  const judge = (r: { issues?: readonly unknown[] | undefined }): void => {
    if (!r.issues) return settle(result)
    tm.report('output_invalid', `Output of "${name}" does not match its output schema`, {
      tool: name,
      callId: call.callId,
      cause: r.issues,
    })
    settle(error(OUTPUT_INVALID_MESSAGE))
  }
  const threw = (err: unknown): void => {
    tm.report('tool_threw', `Output validator of "${name}" threw`, {
      tool: name,
      callId: call.callId,
      cause: err,
    })
    settle(error(TOOL_FAILED_MESSAGE))
  }
  try {
    const r = entry.def.output!['~standard'].validate(result.data)
    if (r instanceof Promise) r.then(judge, threw)
    else judge(r)
  } catch (err) {
    threw(err)
  }
}
