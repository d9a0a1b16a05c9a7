import { newId } from '../ids.ts'
import type { Entry } from '../tool/entry.ts'
import { redactedValue } from '../tool/redact.ts'
import type { BlockedReason, Caller, ToolResult } from '../types.ts'
import type { CallHost } from './host.ts'

/** The call a `blocked` event is about (a `CallRequest` once the call was accepted). */
export interface BlockedCall {
  readonly caller?: unknown
  readonly callId?: string | undefined
  readonly rev?: number | undefined
  /** The registration, when the tool is known: its sensitive paths redact `input`. */
  readonly entry?: Entry
  readonly input?: unknown
}

/**
 * Answers a call that never reaches its tool's `run` with `result`, and tells `blocked` observers
 * why (only when one is attached: otherwise this is just `return result`). The reason's code is the
 * result's refusal code or status; a missing or stale tool adds the revisions, `detail` the rest.
 */
export function blocked(
  tm: CallHost,
  result: ToolResult,
  name: string,
  call: BlockedCall,
  detail?: object,
): ToolResult {
  if (!tm.emitter.has('blocked')) return result
  const code = result.status === 'refused' ? result.code : result.status
  const { entry, input } = call
  tm.emitter.emit('blocked', {
    callId: call.callId || newId(),
    tool: String(name),
    caller: String(call.caller),
    reason: {
      code,
      ...(code === 'stale' || code === 'unknown_tool' ? { rev: call.rev, currentRev: tm.rev } : {}),
      ...detail,
    } as BlockedReason,
    result,
    ...(entry && { input: redactedValue(input, entry.def.sensitivePaths) }),
  })
  return result
}

/** The policy rule that keeps `caller` from `entry` (see `allows` in policy/policy.ts). */
export function ruleOf(tm: CallHost, entry: Entry, caller: Caller): object {
  const allowed = [...(tm.policy.get(caller) ?? [])]
  return {
    rule: {
      caller,
      hintClass: entry.hintClass,
      allowed,
      ...(allowed.includes(entry.hintClass) && { noConfirmHandler: true }),
    },
  }
}
