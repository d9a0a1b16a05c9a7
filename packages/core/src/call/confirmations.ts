import { clock } from '../clock.ts'
import { type Approval, isApprovalProblem } from '../confirm/approval.ts'
import { DeferredConfirmations } from '../confirm/deferred.ts'
import { conversationOf, findGrant } from '../confirm/grants.ts'
import { confirmCall } from '../confirm/inline.ts'
import type { PendingRecord } from '../confirm/pending.ts'
import { cancelled, refused } from '../tool/result.ts'
import type { Caller, ConfirmOutcome, ToolResult } from '../types.ts'
import { blocked, ruleOf } from './blocked.ts'
import { gone } from './gone.ts'
import type { CallHost } from './host.ts'
import type { CallRequest } from './request.ts'

/** What confirming calls needs of the pipeline: its registry, its run and its `result` event. */
export interface ConfirmingPipeline {
  readonly tm: CallHost
  /** Runs a call through its scope's queue (an approved one checks its approval when it starts). */
  execute(req: CallRequest): ToolResult | Promise<ToolResult>
  /** Emits the `result` event of a call that was accepted; `t0` is when (monotonic). */
  emitResult(req: CallRequest, result: ToolResult, t0: number): void
}

/**
 * The confirmations of one pipeline, created with its first confirmation: deferred ones answer
 * `needs_confirmation` and run once approved (as caller `human`); inline ones ask the app's
 * handler and run the approved call.
 */
export class CallConfirmations {
  readonly #p: ConfirmingPipeline
  readonly #deferred: DeferredConfirmations

  constructor(p: ConfirmingPipeline) {
    this.#p = p
    this.#deferred = new DeferredConfirmations(p.tm, (rec, input, approval) =>
      this.#runApproved(rec, input, approval),
    )
  }

  /**
   * Deferred mode answers `needs_confirmation` at once; inline mode asks and waits, and needs the
   * app's handler.
   */
  confirm(req: CallRequest): ToolResult | Promise<ToolResult> {
    const p = this.#p
    const { tm } = p
    const { entry } = req
    const caller = req.caller as Exclude<Caller, 'human'>
    const callId = req.callId as string
    const deferred = tm.modes[caller] === 'deferred'
    // Inline without a handler: nobody could have been asked, so no grant applies either.
    if (!deferred && tm.options.confirm === undefined)
      return blocked(tm, refused('not_allowed'), entry.name, req, ruleOf(tm, entry, caller))
    // A live grant for this tool, fingerprint and caller kind: it runs without a card.
    const conversation = conversationOf(req.conversation)
    const grant = findGrant(tm, entry, caller, conversation)
    if (grant) {
      req.grant = grant.id
      return p.execute(req)
    }
    if (deferred) return this.#deferred.defer(entry, req.input, callId, caller, conversation)
    return confirmCall(tm, req, callId, (approved) => p.execute(approved))
  }

  /** Completes a deferred confirmation (see `DeferredConfirmations.confirmPending`). */
  confirmPending(confirmId: string, outcome: ConfirmOutcome): Promise<ToolResult> {
    return this.#deferred.confirmPending(confirmId, outcome)
  }

  /** An approved deferred confirmation: runs as `human`, only if still approved when its turn comes. */
  async #runApproved(rec: PendingRecord, input: unknown, approval: Approval): Promise<ToolResult> {
    const p = this.#p
    const events = p.tm.emitter.has('result')
    const t0 = events ? clock.mono() : 0
    const req: CallRequest = {
      entry: rec.entry,
      input,
      callId: rec.callId,
      caller: 'human',
      signal: undefined,
      rev: undefined,
      deadline: undefined,
      approval,
    }
    const result = await p.execute(req)
    // One that never started emits nothing: its confirmation settles with the reason.
    if (events && !isApprovalProblem(result)) p.emitResult(req, result, t0)
    return result
  }
}
