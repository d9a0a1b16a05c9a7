import type { Approval } from '../confirm/approval.ts'
import type { Entry } from '../tool/entry.ts'
import type { Caller } from '../types.ts'

/**
 * One call, built once when it is accepted and handed on through validation, confirmation and the
 * run. `input` becomes the validated (or approved) value; `callId` is minted when first needed.
 */
export interface CallRequest {
  /** The registration that was looked up (a confirmation and the run stay bound to it). */
  readonly entry: Entry
  /** The input as sent, then as validated, then as approved (an approver may edit it). */
  input: unknown
  /** The caller's id, or one minted when an event or a confirmation needs it; else minted by the run. */
  callId: string | undefined
  readonly caller: Caller
  /** The caller's signal: an abort answers `cancelled { by: 'signal' }` wherever the call is. */
  readonly signal: AbortSignal | undefined
  /** The revision a plain call carried, for the answer when its tool is gone before it starts. */
  readonly rev: number | undefined
  /** When the call's deadline falls (monotonic); undefined: `callTimeoutMs` from when the run is created. */
  deadline: number | undefined
  /** Set for an approved confirmation: what its run checks again when it starts. */
  approval: Approval | undefined
  /** The call's conversation id (`CallOptions.conversation`, as passed: checked where grants use it). */
  conversation?: unknown
  /** The id of the grant that let the call skip its confirmation. */
  grant?: string
  /** Set by the run when it starts while a `result` listener is attached: the time it waited in the queue. */
  queuedMs?: number
}
