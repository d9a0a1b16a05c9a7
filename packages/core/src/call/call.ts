import type { StandardSchemaV1 } from '@standard-schema/spec'
import { clock } from '../clock.ts'
import { ERROR_MESSAGES, REFUSED_MESSAGES } from '../codes.ts'
import { acceptEdit, askInline, cardData } from '../confirm/flow.ts'
import type { PendingRecord } from '../confirm/pending.ts'
import { redactInput } from '../confirm/redact.ts'
import { newId } from '../ids.ts'
import { isCaller } from '../policy/policy.ts'
import type { Entry } from '../registry/entry.ts'
import { toIssues } from '../schema/validate.ts'
import type { ToolmarkImpl } from '../toolmark.ts'
import type {
  Caller,
  CallOptions,
  ConfirmOutcome,
  FieldChange,
  PendingConfirmation,
  ToolResult,
} from '../types.ts'
import { cancelled, error, invalid, isRunResult, ok, refused } from './result.ts'
import { Run } from './run.ts'

const TOOL_FAILED = Object.freeze(error(ERROR_MESSAGES.toolFailed))

/**
 * The call pipeline: lookup → rev/stale → policy → validate → confirm → queue → run. `call`
 * never throws and never rejects: every outcome is a `ToolResult`.
 */
export class Pipeline {
  readonly #tm: ToolmarkImpl

  constructor(tm: ToolmarkImpl) {
    this.#tm = tm
  }

  /**
   * The hot path is synchronous up to the tool's own promise: no `async` hops for a tool with a
   * synchronous validator and no confirmation.
   */
  /**
   * The hot path is synchronous up to the tool's own promise: a tool with a synchronous validator,
   * no confirmation and a synchronous `run` on a free queue is answered without creating a promise.
   */
  async call(name: string, input: unknown, options: CallOptions): Promise<ToolResult> {
    const tm = this.#tm
    const caller = options?.caller
    try {
      if (!isCaller(caller)) return refused('not_allowed', 'Unknown caller')
      const entry = tm.lookup(name, undefined)
      if (!entry) {
        return tm.wentStale(name, options.rev)
          ? refused('stale', REFUSED_MESSAGES.stale, tm.rev)
          : refused('unknown_tool', REFUSED_MESSAGES.unknown_tool, tm.rev)
      }
      if (!tm.allows(entry, caller)) return refused('not_allowed')
      const signal = options.signal
      if (signal?.aborted) return cancelled('signal')
      if (entry.scope.queue.full) return refused('busy')
      let callId = typeof options.callId === 'string' && options.callId !== '' ? options.callId : undefined
      const events = tm.emitter.has('call') || tm.emitter.has('result')
      if (events) callId ??= newId()
      const t0 = events ? clock.mono() : 0
      if (events)
        tm.emitter.emit('call', {
          callId: callId!,
          tool: entry.name,
          caller,
          input: this.#redacted(entry, input),
        })
      let pending: ToolResult | Promise<ToolResult> | undefined
      let checked: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>> | undefined
      try {
        checked = entry.validate?.(input)
      } catch (err) {
        pending = this.#threw(entry, callId, 'validator', err)
      }
      pending ??=
        checked instanceof Promise
          ? this.#afterAsyncValidation(entry, checked, callId, caller, signal)
          : this.#validated(entry, checked === undefined ? input : checked, callId, caller, signal)
      // Await only what is really asynchronous: a value returned from this async function settles
      // faster (and with a far lower p99 on Node 20) than a forwarded promise.
      const result = pending instanceof Promise ? await pending : pending
      return events ? this.#emitResult(entry, callId!, caller, result, t0) : result
    } catch (err) {
      tm.report('tool_threw', `Call of "${String(name)}" failed`, { tool: String(name), cause: err })
      return TOOL_FAILED
    }
  }

  async #afterAsyncValidation(
    entry: Entry,
    checking: Promise<StandardSchemaV1.Result<unknown>>,
    callId: string | undefined,
    caller: Caller,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult> {
    let checked: StandardSchemaV1.Result<unknown>
    try {
      checked = await checking
    } catch (err) {
      return this.#threw(entry, callId, 'validator', err)
    }
    return this.#validated(entry, checked, callId, caller, signal)
  }

  /** After validation: answer `invalid`, confirm when needed, then run. */
  #validated(
    entry: Entry,
    checked: StandardSchemaV1.Result<unknown> | unknown,
    callId: string | undefined,
    caller: Caller,
    signal: AbortSignal | undefined,
  ): ToolResult | Promise<ToolResult> {
    let value = checked
    if (entry.validate) {
      const r = checked as StandardSchemaV1.Result<unknown>
      if (r.issues) return invalid(toIssues(r.issues))
      value = r.value
    }
    if (caller !== 'human' && this.#needsConfirmation(entry, value, caller)) {
      if (this.#tm.modes[caller] === 'deferred') return this.#defer(entry, value, callId ?? newId(), caller)
      return this.#confirmInline(entry, value, callId ?? newId(), caller, signal)
    }
    return this.execute(entry, value, callId, caller, signal)
  }

  async #confirmInline(
    entry: Entry,
    value: unknown,
    callId: string,
    caller: Caller,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult> {
    if (this.#tm.options.confirm === undefined) return refused('not_allowed')
    let summary: string
    let changes: readonly FieldChange[]
    let snapshot: string | undefined
    try {
      summary = summaryOf(entry, value)
      changes = changesOf(entry, value)
      snapshot = entry.def.snapshot ? JSON.stringify(entry.def.snapshot()) : undefined
    } catch (err) {
      return this.#threw(entry, callId, 'summary', err)
    }
    const outcome = await askInline(this.#tm, entry, {
      kind: 'call',
      callId,
      caller,
      input: value,
      summary,
      changes,
      signal,
    })
    if (!outcome.approved) return outcome.result
    // A form whose values changed while the prompt was open is refused, as for a deferred approval.
    if (snapshot !== undefined) {
      try {
        if (JSON.stringify(entry.def.snapshot?.()) !== snapshot)
          return refused('stale', REFUSED_MESSAGES.staleForm)
      } catch (err) {
        return this.#threw(entry, callId, 'snapshot', err)
      }
    }
    return this.execute(entry, outcome.input, callId, caller, signal)
  }

  /** Runs `run` through the scope's queue with the shared deadline and the grace period. */
  execute(
    entry: Entry,
    input: unknown,
    callId: string | undefined,
    caller: Caller,
    signal?: AbortSignal,
  ): ToolResult | Promise<ToolResult> {
    if (entry.scope.queue.full) return refused('busy')
    // A tool that settles synchronously (free queue, sync run) is answered without a promise.
    let settled: ToolResult | undefined
    let resolve: ((result: ToolResult) => void) | undefined
    new Run(this.#tm, entry, input, callId, caller, signal, (result) => {
      if (resolve) resolve(result)
      else settled = result
    })
    if (settled !== undefined) return settled
    return new Promise<ToolResult>((r) => {
      resolve = r
    })
  }

  #needsConfirmation(entry: Entry, input: unknown, caller: Caller): boolean {
    if (entry.confirms) return true
    const rule = this.#tm.options.requiresConfirmation
    if (!rule) return false
    try {
      return rule(entry.summary, { input }, caller) === true
    } catch (err) {
      this.#tm.report('tool_threw', 'requiresConfirmation threw; asking for confirmation', {
        tool: entry.name,
        cause: err,
      })
      return true
    }
  }

  /** Deferred mode: store a single-use confirmation and answer `needs_confirmation` at once. */
  #defer(entry: Entry, value: unknown, callId: string, caller: Caller): ToolResult {
    const tm = this.#tm
    let summary: string
    let changes: readonly FieldChange[]
    let snapshot: string | undefined
    try {
      summary = summaryOf(entry, value)
      changes = changesOf(entry, value)
    } catch (err) {
      return this.#threw(entry, callId, 'summary', err)
    }
    try {
      snapshot = entry.def.snapshot ? JSON.stringify(entry.def.snapshot()) : undefined
    } catch (err) {
      return this.#threw(entry, callId, 'snapshot', err)
    }
    const confirmId = newId()
    const createdAt = clock.now()
    const card = cardData(entry, confirmId, caller, value, summary, changes, createdAt + tm.expiryMs)
    const rec: PendingRecord = {
      confirmId,
      callId,
      mode: 'deferred',
      entry,
      caller,
      input: value,
      card: Object.freeze({ ...card, createdAt, callId }) as PendingConfirmation,
      monoStart: clock.mono(),
      snapshot,
      expire: () => this.#settleDeferred(rec, refused('confirmation_expired'), 'expired'),
    }
    tm.pending.add(rec)
    tm.emitter.emit('confirm', { phase: 'requested', mode: 'deferred', request: rec.card, callId })
    return { status: 'needs_confirmation', confirmId, summary, changes: card.changes }
  }

  #settleDeferred(
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

  /** Completes a deferred confirmation (seed 000 + decisions 1–4). */
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
        return this.#settleDeferred(rec, cancelled('operator'), 'rejected')
      }
      if (rec.entry.disposed) {
        tm.pending.remove(rec)
        return this.#settleDeferred(rec, refused('stale', REFUSED_MESSAGES.staleTool), 'stale')
      }
      let value = rec.input
      if ('input' in outcome && outcome.input !== undefined) {
        const edit = await acceptEdit(rec.entry, outcome.input, rec.input)
        if (!edit.ok) return invalid(edit.issues) // decision 2: not consumed
        value = edit.value
      }
      // Single use: the first approval to get here consumes it; a concurrent one sees it gone.
      if (!tm.pending.remove(rec)) return refused('confirmation_expired')
      if (tm.pending.isExpired(rec))
        return this.#settleDeferred(rec, refused('confirmation_expired'), 'expired')
      if (rec.entry.disposed)
        return this.#settleDeferred(rec, refused('stale', REFUSED_MESSAGES.staleTool), 'stale')
      if (rec.snapshot !== undefined) {
        let now: string | undefined
        try {
          now = JSON.stringify(rec.entry.def.snapshot?.())
        } catch (err) {
          tm.report('tool_threw', `snapshot of "${name}" threw`, { tool: name, cause: err })
          return this.#settleDeferred(rec, TOOL_FAILED, 'approved')
        }
        if (now !== rec.snapshot) {
          return this.#settleDeferred(rec, refused('stale', REFUSED_MESSAGES.staleForm), 'stale')
        }
      }
      tm.emitter.emit('interaction', { kind: 'approved', confirmId, tool: name })
      const events = tm.emitter.has('result')
      const t0 = events ? clock.mono() : 0
      const result = await this.execute(rec.entry, value, rec.callId, 'human')
      if (events) this.#emitResult(rec.entry, rec.callId, 'human', result, t0)
      return this.#settleDeferred(rec, result, 'approved')
    } catch (err) {
      tm.report('tool_threw', 'confirmPending failed', { cause: err })
      return TOOL_FAILED
    }
  }

  /** Runs the restorer a call registered; single use. */
  async undo(callId: string): Promise<ToolResult> {
    const fn = this.#tm.undoStore.take(callId)
    if (!fn) return refused('undo_unavailable')
    try {
      const out = await fn()
      if (out === undefined) return ok()
      return isRunResult(out) ? out : ok(out)
    } catch (err) {
      this.#tm.report('tool_threw', 'An undo restorer threw', { callId, cause: err })
      return TOOL_FAILED
    }
  }

  #threw(entry: Entry, callId: string | undefined, what: string, err: unknown): ToolResult {
    this.#tm.report('tool_threw', `The ${what} of "${entry.name}" threw`, {
      tool: entry.name,
      ...(callId === undefined ? {} : { callId }),
      cause: err,
    })
    return TOOL_FAILED
  }

  #redacted(entry: Entry, input: unknown): unknown {
    return entry.def.sensitivePaths === undefined ? input : redactInput(input, entry.def.sensitivePaths).value
  }

  #emitResult(entry: Entry, callId: string, caller: Caller, result: ToolResult, t0: number): ToolResult {
    this.#tm.emitter.emit('result', {
      callId,
      tool: entry.name,
      caller,
      result,
      durationMs: clock.mono() - t0,
    })
    return result
  }
}

/** The card summary: the tool's `summary` (string or function of the input), else its title or name. */
function summaryOf(entry: Entry, input: unknown): string {
  const s = entry.def.summary
  if (typeof s === 'function') return String(s(input as never))
  return s ?? entry.def.title ?? entry.name
}

/** The field changes a confirmation shows: the tool's `changes(input)` (form tools), else none. */
function changesOf(entry: Entry, input: unknown): readonly FieldChange[] {
  const changes = entry.def.changes?.(input as never)
  return Array.isArray(changes) ? changes : []
}
