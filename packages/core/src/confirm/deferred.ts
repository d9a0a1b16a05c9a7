import { clock } from '../clock.ts'
import { REFUSED_MESSAGES } from '../codes.ts'
import { newId } from '../ids.ts'
import type { Entry } from '../tool/entry.ts'
import { cancelled, invalid, refused, TOOL_FAILED } from '../tool/result.ts'
import type { Caller, ConfirmOutcome, PendingConfirmation, ToolResult } from '../types.ts'
import { type Approval, approvalProblem, settledAs } from './approval.ts'
import { cardData, prepareConfirmation } from './card.ts'
import { acceptEdit } from './edit.ts'
import { offerGrant, rememberApproval } from './grants.ts'
import type { ConfirmHost } from './host.ts'
import type { PendingRecord } from './pending.ts'

/** A tool that can no longer be approved: its registration is gone or its scope is hidden. */
function gone(entry: Entry): boolean {
  return entry.disposed || !entry.scope.visible()
}

/** Runs an approved deferred confirmation as caller `human`, through the scope's queue. */
export type RunApproved = (
  rec: PendingRecord,
  input: unknown,
  approval: Approval,
) => ToolResult | Promise<ToolResult>

/** What the approved run of `rec` checks again when it starts. */
function approvalOf(tm: ConfirmHost, rec: PendingRecord): Approval {
  return { expired: () => tm.pending.isExpired(rec), snapshot: rec.snapshot }
}

/**
 * Deferred confirmations (the default for in-app agents): a consequential call answers
 * `needs_confirmation` at once with a single-use `confirmId`; the app approves or rejects later
 * with `tm.confirmPending`, and a `confirm` event carries the final result (what the bridge sends
 * as `confirmed`).
 */
export class DeferredConfirmations {
  readonly #tm: ConfirmHost
  readonly #runApproved: RunApproved

  constructor(tm: ConfirmHost, runApproved: RunApproved) {
    this.#tm = tm
    this.#runApproved = runApproved
  }

  /** Deferred mode: store a single-use confirmation and answer `needs_confirmation` at once. */
  defer(
    entry: Entry,
    value: unknown,
    callId: string,
    caller: Caller,
    conversation: string | undefined,
  ): ToolResult {
    const tm = this.#tm
    const prepared = prepareConfirmation(tm, entry, value, callId)
    if ('status' in prepared) return prepared
    const confirmId = newId()
    const createdAt = clock.now()
    const card = offerGrant(
      tm,
      entry,
      cardData(entry, confirmId, caller, prepared, createdAt + tm.expiryMs),
      conversation,
    )
    const rec: PendingRecord = {
      confirmId,
      callId,
      mode: 'deferred',
      entry,
      caller,
      input: value,
      conversation,
      card: Object.freeze({ ...card, createdAt, callId }) as PendingConfirmation,
      monoStart: clock.mono(),
      snapshot: prepared.snapshot,
      expire: () => this.#settle(rec, refused('confirmation_expired'), 'expired'),
    }
    tm.pending.add(rec)
    tm.emitter.emit('confirm', { phase: 'requested', mode: 'deferred', request: rec.card, callId })
    return { status: 'needs_confirmation', confirmId, summary: card.summary, changes: card.changes }
  }

  #settle(
    rec: PendingRecord,
    result: ToolResult,
    outcome: 'approved' | 'rejected' | 'expired' | 'stale' | 'cancelled',
  ): ToolResult {
    this.#tm.emitter.emit('confirm', {
      phase: 'settled',
      mode: 'deferred',
      confirmId: rec.confirmId,
      callId: rec.callId,
      tool: rec.entry.name,
      outcome,
      result,
    })
    return result
  }

  /**
   * Completes a deferred confirmation: rejected → `cancelled operator`; expired or used →
   * `refused confirmation_expired`; the registration gone or the form changed → `refused stale`;
   * approved → the tool's own result, run as caller `human`. An edit that fails validation answers
   * `invalid` and leaves the confirmation open.
   */
  async confirmPending(confirmId: string, outcome: ConfirmOutcome): Promise<ToolResult> {
    const tm = this.#tm
    try {
      const rec = tm.pending.get(confirmId)
      if (rec?.mode !== 'deferred') return refused('confirmation_expired')
      if (tm.pending.isExpired(rec)) {
        if (tm.pending.remove(rec)) rec.expire()
        return refused('confirmation_expired')
      }
      const name = rec.entry.name
      if (outcome?.approved !== true) {
        tm.pending.remove(rec)
        tm.emitter.emit('interaction', { kind: 'rejected', confirmId, tool: name })
        return this.#settle(rec, cancelled('operator'), 'rejected')
      }
      if (gone(rec.entry)) {
        tm.pending.remove(rec)
        return this.#settle(rec, refused('stale', REFUSED_MESSAGES.staleTool), 'stale')
      }
      let value = rec.input
      if ('input' in outcome && outcome.input !== undefined) {
        const edit = await acceptEdit(rec.entry, outcome.input, rec.input)
        // Not consumed: the approver can fix the edit and approve again.
        if (!edit.ok) return invalid(edit.issues)
        value = edit.value
      }
      // Single use: the first approval to get here consumes it; a concurrent one sees it gone.
      if (!tm.pending.remove(rec)) return refused('confirmation_expired')
      if (tm.pending.isExpired(rec)) return this.#settle(rec, refused('confirmation_expired'), 'expired')
      const approval = approvalOf(tm, rec)
      const problem = approvalProblem(tm, rec.entry, approval, rec.callId)
      if (problem !== undefined) return this.#settle(rec, problem, settledAs(problem))
      tm.emitter.emit('interaction', { kind: 'approved', confirmId, tool: name })
      rememberApproval(tm, rec.entry, rec.caller, rec.conversation, outcome.remember)
      // The approved run still waits its turn in the scope's queue: it starts only if the tool is
      // still the one approved and visible, the approval has not expired and the form still holds
      // the values the card showed.
      const result = await this.#runApproved(rec, value, approval)
      return this.#settle(rec, result, settledAs(result))
    } catch (err) {
      tm.report('tool_threw', 'confirmPending failed', { cause: err })
      return TOOL_FAILED
    }
  }
}
