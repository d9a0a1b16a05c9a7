import type { Approval } from '../confirm/approval.ts'
import type { Entry } from '../tool/entry.ts'
import type { Caller } from '../types.ts'

/**
 * One call, built once when it is accepted and handed on through validation, confirmation and the
 * run. `input` becomes the validated (or approved) value; `callId` is minted when first needed.
 */
export interface CallRequest {
  readonly entry: Entry
  input: unknown
  callId: string | undefined
  readonly caller: Caller
  readonly signal: AbortSignal | undefined
  /** The revision a plain call carried, for the answer when its tool is gone before it starts. */
  readonly rev: number | undefined
  /** When the call's deadline falls (monotonic); undefined: `callTimeoutMs` from when the run is created. */
  deadline: number | undefined
  /** Set for an approved confirmation: what its run checks again when it starts. */
  approval: Approval | undefined
}
