import { REFUSED_MESSAGES } from '../codes.ts'
import type { Entry } from '../tool/entry.ts'
import { refused } from '../tool/result.ts'
import { threw } from '../tool/threw.ts'
import type { ToolResult } from '../types.ts'
import type { ConfirmHost } from './host.ts'

/** An approval whose tool registration is gone since the request (the approval is used up). */
export const STALE_APPROVAL: ToolResult = Object.freeze(refused('stale', REFUSED_MESSAGES.staleTool))
/** An approval of a form whose values changed before its run started (the approval is used up). */
export const STALE_FORM_APPROVAL: ToolResult = Object.freeze(refused('stale', REFUSED_MESSAGES.staleForm))
/** An approval that expired before its run could start. */
export const EXPIRED_APPROVAL: ToolResult = Object.freeze(refused('confirmation_expired'))

/** What the run of an approved confirmation checks again when it starts. */
export interface Approval {
  /** Whether the approval has expired. */
  expired(): boolean
  /** JSON of the tool's `snapshot()` when the user was asked (form tools), else undefined. */
  readonly snapshot: string | undefined
}

/**
 * Why an approval no longer holds, or undefined while it does: the registration is gone or its
 * scope hidden (`refused stale`), the approval expired (`refused confirmation_expired`), or the form
 * no longer holds the values the card showed (`refused stale`, the form message). Checked where a
 * deferred approval is accepted and again where any approved run starts.
 */
export function approvalProblem(
  tm: Pick<ConfirmHost, 'report'>,
  entry: Entry,
  approval: Approval,
  callId: string | undefined,
): ToolResult | undefined {
  if (entry.disposed || !entry.scope.visible()) return STALE_APPROVAL
  if (approval.expired()) return EXPIRED_APPROVAL
  if (approval.snapshot === undefined) return undefined
  // A fill or the user may have changed the form since the card was shown.
  let now: string | undefined
  try {
    now = JSON.stringify(entry.def.snapshot?.())
  } catch (err) {
    return threw(tm, entry, callId, 'snapshot', err)
  }
  return now === approval.snapshot ? undefined : STALE_FORM_APPROVAL
}

/** How a deferred confirmation settles for the result of its approved run (or of the last check). */
export function settledAs(result: ToolResult): 'approved' | 'stale' | 'expired' {
  if (result === STALE_APPROVAL || result === STALE_FORM_APPROVAL) return 'stale'
  return result === EXPIRED_APPROVAL ? 'expired' : 'approved'
}

/** Whether `result` is the answer of an approved run that never started (its confirmation settles with it). */
export function isApprovalProblem(result: ToolResult): boolean {
  return result === STALE_APPROVAL || result === STALE_FORM_APPROVAL || result === EXPIRED_APPROVAL
}
