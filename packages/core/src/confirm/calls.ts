import { clock } from '../clock.ts'
import type { Caller, ConfirmOutcome, ToolResult } from '../types.ts'
import { type Approval, isApprovalProblem } from './approval.ts'
import { DeferredConfirmations } from './deferred.ts'
import type { ConfirmHost } from './host.ts'
import { confirmCall, type InlineCall } from './inline.ts'
import type { PendingRecord } from './pending.ts'

/** A call as confirmations read and update it (the pipeline's `CallRequest`, which `call/` declares). */
export interface ConfirmedCall extends InlineCall {
  callId: string | undefined
  readonly rev: number | undefined
  /** Set by the run when it starts while a `result` listener is attached. */
  queuedMs?: number
}

/** What confirming calls needs of the pipeline: its registry, its run and its `result` event. */
export interface ConfirmingPipeline {
  readonly tm: ConfirmHost & { readonly timeoutMs: number }
  /** Runs a call through its scope's queue (an approved one checks its approval when it starts). */
  execute(req: ConfirmedCall): ToolResult | Promise<ToolResult>
  /** Emits the `result` event of a call that was accepted; `t0` is when (monotonic). */
  emitResult(req: ConfirmedCall, result: ToolResult, t0: number): void
}

/**
 * The confirmations of one pipeline, created with its first confirmation: deferred ones answer
 * `needs_confirmation` and run once approved (as caller `human`); inline ones ask the app's
 * handler and run the approved call. The pipeline has checked that an inline caller has a handler.
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

  /** Deferred mode answers `needs_confirmation` at once; inline mode asks and waits. */
  confirm(req: ConfirmedCall, callId: string): ToolResult | Promise<ToolResult> {
    const p = this.#p
    const caller = req.caller as Exclude<Caller, 'human'>
    return p.tm.modes[caller] === 'deferred'
      ? this.#deferred.defer(req.entry, req.input, callId, caller)
      : confirmCall(p.tm, req, callId, (approved) => p.execute(approved))
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
    const req: ConfirmedCall = {
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
