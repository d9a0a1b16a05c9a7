import { clock, later } from '../clock.ts'
import { TOOL_FAILED_MESSAGE } from '../codes.ts'
import { approvalProblem } from '../confirm/approval.ts'
import { ToolmarkError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Entry } from '../tool/entry.ts'
import type { Turn } from '../tool/queue.ts'
import { cancelled, error, isRunResult, ok } from '../tool/result.ts'
import type {
  Caller,
  CtxConfirmOutcome,
  FieldChange,
  ToolContext,
  ToolFiles,
  ToolProgress,
  ToolProgressEvent,
  ToolResult,
} from '../types.ts'
import { blocked } from './blocked.ts'
import { ctxConfirm } from './ctx-confirm.ts'
import type { Timed } from './deadlines.ts'
import { gone } from './gone.ts'
import type { CallHost } from './host.ts'
import type { CallRequest } from './request.ts'

/** Development-only code tests `process.env.NODE_ENV` where it sits (the rule: report.ts). */
declare const process: { env: { NODE_ENV?: string } }

const CANCELLED_SIGNAL: ToolResult = Object.freeze(cancelled('signal'))

/** How a run that cannot start is answered when its tool is gone: a plain call's refusal. */
export type GoneAnswer = (name: string, rev: number | undefined) => ToolResult

const FILES: ToolFiles = Object.freeze({
  resolve(): never {
    throw new ToolmarkError('files_not_configured', 'File support is not configured')
  },
})

/**
 * One execution of a tool's `run`: holds the queue slot, the shared deadline, the lazily created
 * AbortController, and guarantees exactly one result. After an abort the tool gets `graceMs` to
 * settle; then the call is answered `cancelled { by: 'signal' }`, its slot released, and anything the
 * tool settles with later is reported as `late_result`.
 *
 * The handler starts only if, at that moment, the call is not aborted, its registration is still
 * the one that was called (or approved) and visible (a scope's `when` can hide it), an approval has
 * not expired, and a form the user approved still holds the values the card showed
 * (`#cannotStart`): whatever awaited before (validation, the queue, a confirmation), nothing runs
 * that should not.
 */
export class Run implements Timed, ToolContext, Turn {
  deadline: number
  tracked = false
  #callId: string | undefined
  readonly caller: Caller
  readonly files = FILES
  readonly #tm: CallHost
  readonly #entry: Entry
  readonly #input: unknown
  readonly #resolve: (result: ToolResult) => void
  #controller: AbortController | undefined
  #started = false
  /** True while the constructor runs: a plain call starting at once was just looked up (visible). */
  #atOnce = false
  #settled = false
  #aborted = false
  #abandoned = false
  #cancelGrace: (() => void) | undefined
  #onCallerAbort: (() => void) | undefined
  /** The call (its revision, approval and caller's signal are read from it). */
  readonly #req: CallRequest
  /** When the call entered its queue (monotonic), kept only while a `result` listener is attached. */
  readonly #entered: number

  constructor(tm: CallHost, req: CallRequest, resolve: (result: ToolResult) => void) {
    this.#tm = tm
    this.#req = req
    this.#entered = tm.emitter.has('result') ? clock.mono() : 0
    this.#entry = req.entry
    this.#input = req.input
    this.#callId = req.callId
    this.caller = req.caller
    this.#resolve = resolve
    const signal = req.signal
    this.deadline = req.deadline ?? clock.mono() + tm.timeoutMs
    tm.deadlines.add(this)
    if (signal) {
      this.#onCallerAbort = () => this.abort()
      signal.addEventListener('abort', this.#onCallerAbort, { once: true })
    }
    const queue = req.entry.scope.queue
    queue.enter()
    this.#atOnce = req.approval === undefined
    queue.whenTurn(this)
    this.#atOnce = false
  }

  /** The call id, minted on first use (most fast calls never need one). */
  get callId(): string {
    this.#callId ??= newId()
    return this.#callId
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort()
    }
    return this.#controller.signal
  }

  registerUndo(undo: () => unknown): void {
    if (typeof undo === 'function') this.#tm.undoStore.set(this.callId, undo)
  }

  progress(update: ToolProgress): void {
    const tm = this.#tm
    if (
      this.#settled ||
      !this.#started ||
      !tm.emitter.has('progress') ||
      !update ||
      typeof update !== 'object'
    )
      return
    const { fraction, message, data } = update
    const event: ToolProgressEvent = { callId: this.callId, tool: this.#entry.name, caller: this.caller }
    if (typeof fraction === 'number' && fraction >= 0 && fraction <= 1) event.fraction = fraction
    if (typeof message === 'string') event.message = message.slice(0, 200)
    if (data !== undefined) event.data = data
    if (event.fraction !== undefined || event.message !== undefined || 'data' in event)
      tm.emitter.emit('progress', event)
  }

  /**
   * Ask the user mid-run (see docs/guides/confirmations.md, ctx.confirm). Never throws. The call
   * deadline pauses meanwhile. A human caller is approved at once; the rest is in call/ctx-confirm.ts.
   */
  async confirm(request: { summary: string; changes?: FieldChange[] }): Promise<CtxConfirmOutcome> {
    const tm = this.#tm
    try {
      if (this.caller === 'human') return { approved: true }
      const state = { input: this.#input, ended: () => this.#settled || this.#aborted }
      return await ctxConfirm(tm, this.#entry, this, state, request)
    } catch (err) {
      tm.report('tool_threw', `ctx.confirm failed in "${this.#entry.name}"`, {
        tool: this.#entry.name,
        cause: err,
      })
      return { approved: false, reason: 'cancelled' }
    }
  }

  /** @internal The queue's turn: runs the tool. */
  start(): void {
    const refusal = this.#cannotStart()
    if (refusal !== undefined) return this.#settle(this.#blocked(refusal))
    this.#started = true
    if (this.#entered) this.#req.queuedMs = clock.mono() - this.#entered
    let out: unknown
    try {
      out = this.#entry.def.run(this.#input as never, this)
    } catch (err) {
      this.#failed(err)
      return
    }
    if (out !== null && typeof out === 'object' && typeof (out as PromiseLike<unknown>).then === 'function') {
      ;(out as PromiseLike<unknown>).then(
        (value) => this.#succeeded(value),
        (err) => this.#failed(err),
      )
    } else {
      this.#succeeded(out)
    }
  }

  /** Why the handler must not start now, or undefined when it may. */
  #cannotStart(): ToolResult | undefined {
    if (this.#aborted || this.#req.signal?.aborted) return CANCELLED_SIGNAL
    const entry = this.#entry
    const approval = this.#req.approval
    // Only confirmations give a run an approval.
    if (approval !== undefined) return approvalProblem(this.#tm, entry, approval, this.#callId)
    // A hidden tool is not callable: answered as if it had gone before the call arrived. A plain call
    // that starts at once was looked up (visible) a moment ago: its `when` is not evaluated twice.
    if (entry.disposed || (!this.#atOnce && !entry.scope.visible()))
      return gone(this.#tm, entry.name, this.#req.rev)
    return undefined
  }

  /** A run that never started: `blocked` observers hear why. */
  #blocked(result: ToolResult): ToolResult {
    const req = this.#req
    return blocked(this.#tm, result, req.entry.name, { ...req, callId: this.#callId })
  }

  #succeeded(value: unknown): void {
    if (this.#late(value)) return
    let result: ToolResult
    if (value === undefined) result = ok()
    else if (isRunResult(value)) result = value
    else {
      this.#tm.report(
        'tool_threw',
        `run of "${this.#entry.name}" returned something that is not a valid ToolResult`,
        {
          tool: this.#entry.name,
          callId: this.callId,
        },
      )
      result = error(TOOL_FAILED_MESSAGE)
    }
    // Reading process.env costs in Node: only a development registry's tools with an output schema do.
    if (
      this.#tm.dev &&
      process.env.NODE_ENV !== 'production' &&
      this.#entry.def.output &&
      result.status === 'ok'
    )
      checkOutput(this.#tm, this.#entry, result.data)
    this.#settle(result)
  }

  #failed(err: unknown): void {
    if (this.#late(err)) return
    if (this.#aborted) return this.#settle(cancelled('signal'))
    this.#tm.report('tool_threw', `run of "${this.#entry.name}" threw`, {
      tool: this.#entry.name,
      callId: this.callId,
      cause: err,
    })
    this.#settle(error(TOOL_FAILED_MESSAGE))
  }

  /** After the grace period the call was answered already: report, never a second result. */
  #late(value: unknown): boolean {
    if (!this.#abandoned) return this.#settled
    this.#tm.report('late_result', `"${this.#entry.name}" settled after its call was abandoned`, {
      tool: this.#entry.name,
      callId: this.callId,
      cause: value,
    })
    return true
  }

  /** Caller abort or deadline: signal the tool, then give it the grace period. */
  abort(): void {
    if (this.#settled || this.#aborted) return
    this.#aborted = true
    this.#controller?.abort()
    if (!this.#started) {
      this.#entry.scope.queue.forget(this)
      this.#settle(this.#blocked(cancelled('signal')), false)
      return
    }
    this.#cancelGrace = later(() => {
      if (this.#settled) return
      this.#abandoned = true
      this.#settle(cancelled('signal'))
    }, this.#tm.graceMs)
  }

  expire(): void {
    this.abort()
  }

  #settle(result: ToolResult, release = true): void {
    if (this.#settled) return
    this.#settled = true
    this.#tm.deadlines.delete(this)
    if (this.#onCallerAbort) this.#req.signal?.removeEventListener('abort', this.#onCallerAbort)
    this.#cancelGrace?.()
    if (release) this.#entry.scope.queue.release()
    this.#resolve(result)
  }
}

/** Development only: an `ok` result whose data fails the tool's output schema emits `output_invalid`. */
function checkOutput(tm: CallHost, entry: Entry, data: unknown): void {
  const name = entry.name
  const report = (r: { issues?: readonly unknown[] | undefined }): void => {
    if (r.issues)
      tm.report('output_invalid', `Output of "${name}" does not match its output schema`, {
        tool: name,
        cause: r.issues,
      })
  }
  try {
    const r = entry.def.output!['~standard'].validate(data)
    if (r instanceof Promise) r.then(report, () => {})
    else report(r)
  } catch (err) {
    tm.report('tool_threw', `Output validator of "${name}" threw`, { tool: name, cause: err })
  }
}
