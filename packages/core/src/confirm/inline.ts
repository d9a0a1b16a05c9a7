import { clock, later } from '../clock.ts'
import { REFUSED_MESSAGES } from '../codes.ts'
import { newId } from '../ids.ts'
import type { Entry } from '../tool/entry.ts'
import { cancelled, invalid, refused } from '../tool/result.ts'
import type {
  Caller,
  CtxConfirmOutcome,
  FieldChange,
  Issue,
  PendingConfirmation,
  ToolResult,
} from '../types.ts'
import type { Approval } from './approval.ts'
import { cardData, type PreparedConfirmation, prepareConfirmation, showInput } from './card.ts'
import { acceptEdit } from './edit.ts'
import { conversationOf, offerGrant, rememberApproval } from './grants.ts'
import type { ConfirmHost } from './host.ts'
import type { PendingRecord } from './pending.ts'

/** How an inline confirmation ended. */
export type InlineOutcome =
  | {
      approved: true
      input: unknown
      edited: boolean
      /** The approver's `remember` choice, as answered (checked where it is kept). */
      remember?: unknown
      /** Whether the approval has expired since (checked again where the approved run starts). */
      expired: () => boolean
    }
  | {
      approved: false
      reason: 'rejected' | 'expired' | 'stale' | 'cancelled' | 'invalid'
      result: ToolResult
    }

/**
 * Ask the app's inline handler and wait, bounded by the call signal and the expiry (by timer and by
 * both clocks when the answer arrives). Bound to the registration: a disposed tool is `stale`.
 */
export function askInline(
  tm: ConfirmHost,
  entry: Entry,
  a: {
    kind: 'call' | 'ctx'
    callId: string
    caller: Caller
    input: unknown
    prepared: PreparedConfirmation
    signal: AbortSignal | undefined
    /** The call's conversation id (calls only: `ctx.confirm` is never remembered). */
    conversation?: string | undefined
  },
): Promise<InlineOutcome> {
  return new Promise<InlineOutcome>((resolve) => {
    // An already-aborted call never opens a confirmation.
    if (a.signal?.aborted)
      return resolve({ approved: false, reason: 'cancelled', result: cancelled('signal') })
    const confirmId = newId()
    const createdAt = clock.now()
    const card = cardData(entry, confirmId, a.caller, a.prepared, createdAt + tm.expiryMs)
    if (a.kind === 'call') offerGrant(tm, entry, card, a.conversation)
    const controller = new AbortController()
    let done = false
    const end = (outcome: InlineOutcome): void => {
      if (done) return
      done = true
      cancelExpiry()
      a.signal?.removeEventListener('abort', onAbort)
      tm.pending.remove(rec)
      controller.abort()
      tm.emitter.emit('confirm', {
        phase: 'settled',
        mode: 'inline',
        confirmId,
        callId: a.callId,
        tool: entry.name,
        outcome: outcome.approved ? 'approved' : outcome.reason === 'invalid' ? 'rejected' : outcome.reason,
      })
      resolve(outcome)
    }
    const expired = (): void =>
      end({ approved: false, reason: 'expired', result: refused('confirmation_expired') })
    const rec: PendingRecord = {
      confirmId,
      callId: a.callId,
      mode: 'inline',
      entry,
      caller: a.caller,
      input: a.input,
      card: { ...card, createdAt, callId: a.callId } satisfies PendingConfirmation,
      monoStart: clock.mono(),
      snapshot: undefined,
      expire: expired,
    }
    const isExpired = (): boolean => tm.pending.isExpired(rec)
    /** Ends the request when it can no longer be approved: expired, tool gone or hidden, call aborted. */
    const ended = (): boolean => {
      if (isExpired()) expired()
      else if (entry.disposed || !entry.scope.visible())
        end({ approved: false, reason: 'stale', result: refused('stale', REFUSED_MESSAGES.staleTool) })
      else if (a.signal?.aborted) onAbort()
      return done
    }
    const onAbort = (): void => end({ approved: false, reason: 'cancelled', result: cancelled('signal') })
    const cancelExpiry = later(expired, tm.expiryMs)
    a.signal?.addEventListener('abort', onAbort, { once: true })
    tm.pending.add(rec)
    tm.emitter.emit('confirm', { phase: 'requested', mode: 'inline', request: card, callId: a.callId })
    const handler = tm.options.confirm!
    /** Asks (again, with `issues`, after an edit the approver must fix: the request stays open). */
    const ask = (issues?: Issue[]): void => {
      let answer: ReturnType<typeof handler>
      try {
        answer = handler(
          issues
            ? { ...card, kind: a.kind, signal: controller.signal, issues }
            : { ...card, kind: a.kind, signal: controller.signal },
        )
      } catch (err) {
        tm.report('tool_threw', `The confirm handler threw for "${entry.name}"`, {
          tool: entry.name,
          cause: err,
        })
        return end({ approved: false, reason: 'cancelled', result: cancelled('policy') })
      }
      Promise.resolve(answer)
        .then(async (outcome) => {
          if (done || ended()) return
          if (outcome?.approved !== true) {
            tm.emitter.emit('interaction', { kind: 'rejected', confirmId, tool: entry.name })
            return end({ approved: false, reason: 'rejected', result: cancelled('operator') })
          }
          if (!('input' in outcome) || outcome.input === undefined) {
            tm.emitter.emit('interaction', { kind: 'approved', confirmId, tool: entry.name })
            return end({
              approved: true,
              input: a.input,
              edited: false,
              remember: outcome.remember,
              expired: isExpired,
            })
          }
          const edit = await acceptEdit(entry, outcome.input, a.input)
          // Re-validation awaited: the expiry, the registration and the signal are checked again.
          if (done || ended()) return
          if (!edit.ok) {
            // An invalid edit does not close a call's confirmation: ask again with the issues to fix.
            // Inside ctx.confirm the outcome is { approved: false, reason: 'invalid' }.
            if (a.kind === 'call') return ask(edit.issues)
            return end({ approved: false, reason: 'invalid', result: invalid(edit.issues) })
          }
          tm.emitter.emit('interaction', { kind: 'approved', confirmId, tool: entry.name })
          end({
            approved: true,
            input: edit.value,
            edited: true,
            remember: outcome.remember,
            expired: isExpired,
          })
        })
        .catch((err: unknown) => {
          tm.report('tool_threw', `The confirm handler or validator failed for "${entry.name}"`, {
            tool: entry.name,
            cause: err,
          })
          end({ approved: false, reason: 'cancelled', result: cancelled('policy') })
        })
    }
    ask()
  })
}

/** What the inline confirmation of a call reads, and updates once it is approved (the call's request). */
export interface InlineCall {
  readonly entry: Entry
  input: unknown
  readonly caller: Caller
  readonly signal: AbortSignal | undefined
  /** The call's conversation id as passed (see `conversationOf`). */
  readonly conversation?: unknown
  deadline: number | undefined
  approval: Approval | undefined
}

/**
 * Inline mode: ask the app's handler and wait, then `run` the approved call. The call deadline is
 * paused while the confirmation is open and resumes with the time that was left; the approved run
 * checks again, when it starts, that the form still holds what the card showed.
 */
export async function confirmCall<R extends InlineCall>(
  tm: ConfirmHost & { readonly timeoutMs: number },
  req: R,
  callId: string,
  run: (req: R) => ToolResult | Promise<ToolResult>,
): Promise<ToolResult> {
  const { entry } = req
  const left = req.deadline === undefined ? tm.timeoutMs : req.deadline - clock.mono()
  const prepared = prepareConfirmation(tm, entry, req.input, callId)
  if ('status' in prepared) return prepared
  const outcome = await askInline(tm, entry, {
    kind: 'call',
    callId,
    caller: req.caller,
    input: req.input,
    prepared,
    signal: req.signal,
    conversation: conversationOf(req.conversation),
  })
  if (!outcome.approved) return outcome.result
  rememberApproval(tm, entry, req.caller, conversationOf(req.conversation), outcome.remember)
  req.input = outcome.input
  req.deadline = clock.mono() + left
  req.approval = { expired: outcome.expired, snapshot: prepared.snapshot }
  return run(req)
}

/**
 * `ctx.confirm` once the run may ask: the card shows the call's input redacted with the request's
 * summary and changes. A registration gone meanwhile answers `cancelled`.
 */
export async function confirmInRun(
  tm: ConfirmHost,
  entry: Entry,
  a: { callId: string; caller: Caller; input: unknown; signal: AbortSignal },
  request: { summary: string; changes?: FieldChange[] },
): Promise<CtxConfirmOutcome> {
  const outcome = await askInline(tm, entry, {
    kind: 'ctx',
    ...a,
    prepared: {
      shown: showInput(entry, a.input),
      summary: String(request?.summary ?? ''),
      changes: Array.isArray(request?.changes) ? request.changes : [],
      snapshot: undefined,
    },
  })
  if (outcome.approved) return outcome.edited ? { approved: true, input: outcome.input } : { approved: true }
  return { approved: false, reason: outcome.reason === 'stale' ? 'cancelled' : outcome.reason }
}
