import { cancelled, invalid, refused } from '../call/result.ts'
import { clock, timer } from '../clock.ts'
import { REFUSED_MESSAGES } from '../codes.ts'
import { newId } from '../ids.ts'
import type { Entry } from '../registry/entry.ts'
import { toIssues } from '../schema/validate.ts'
import type { ToolmarkImpl } from '../toolmark.ts'
import type {
  Caller,
  ConfirmationCardData,
  FieldChange,
  Issue,
  PendingConfirmation,
  ToolResult,
} from '../types.ts'
import type { PendingRecord } from './pending.ts'
import { readSensitivePaths, redactChanges, redactInput, restoreRedacted } from './redact.ts'

/** How an inline confirmation ended. */
export type InlineOutcome =
  | { approved: true; input: unknown; edited: boolean }
  | {
      approved: false
      reason: 'rejected' | 'expired' | 'stale' | 'cancelled' | 'invalid'
      result: ToolResult
    }

/** The card a confirmation shows: redacted input and changes, target, destructive flag, expiry. */
export function cardData(
  entry: Entry,
  confirmId: string,
  caller: Caller,
  input: unknown,
  summary: string,
  changes: readonly FieldChange[],
  expiresAt: number,
): ConfirmationCardData {
  const paths = readSensitivePaths(entry.def.sensitivePaths) // read once: input and changes agree
  const card: ConfirmationCardData = {
    confirmId,
    tool: entry.name,
    summary,
    destructive: entry.hintClass === 'destructive',
    caller,
    input: redactInput(input, paths).value,
    changes: redactChanges([...changes], paths),
    expiresAt,
  }
  if (entry.def.title !== undefined) card.title = entry.def.title
  if (entry.def.undoable === true) card.undoable = true
  const target = (input as { name?: unknown } | null | undefined)?.name
  if (typeof target === 'string') card.target = target
  return card
}

/**
 * Restores `'[redacted]'` placeholders from the real input, then validates the approver's edit.
 * Returns the validated value or the `invalid` issues.
 */
export async function acceptEdit(
  entry: Entry,
  edited: unknown,
  original: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; issues: Issue[] }> {
  const restored = restoreRedacted(edited, original, entry.def.sensitivePaths)
  if (!restored.ok) return restored
  if (!entry.validate) return { ok: true, value: restored.value }
  const r = await entry.validate(restored.value)
  return r.issues ? { ok: false, issues: toIssues(r.issues) } : { ok: true, value: r.value }
}

/**
 * Ask the app's inline handler and wait, bounded by the call signal and the expiry (by timer and by
 * both clocks when the answer arrives). Bound to the registration: a disposed tool is `stale`.
 */
export function askInline(
  tm: ToolmarkImpl,
  entry: Entry,
  a: {
    kind: 'call' | 'ctx'
    callId: string
    caller: Caller
    input: unknown
    summary: string
    changes: readonly FieldChange[]
    signal: AbortSignal | undefined
  },
): Promise<InlineOutcome> {
  return new Promise<InlineOutcome>((resolve) => {
    const confirmId = newId()
    const createdAt = clock.now()
    const card = cardData(entry, confirmId, a.caller, a.input, a.summary, a.changes, createdAt + tm.expiryMs)
    const controller = new AbortController()
    let done = false
    const end = (outcome: InlineOutcome): void => {
      if (done) return
      done = true
      clearTimeout(expiry)
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
    const onAbort = (): void => end({ approved: false, reason: 'cancelled', result: cancelled('signal') })
    const expiry = timer(expired, tm.expiryMs)
    if (a.signal?.aborted) return onAbort()
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
          if (done) return
          if (tm.pending.isExpired(rec)) return expired()
          if (entry.disposed) {
            return end({
              approved: false,
              reason: 'stale',
              result: refused('stale', REFUSED_MESSAGES.staleTool),
            })
          }
          if (outcome?.approved !== true) {
            tm.emitter.emit('interaction', { kind: 'rejected', confirmId, tool: entry.name })
            return end({ approved: false, reason: 'rejected', result: cancelled('operator') })
          }
          if (!('input' in outcome) || outcome.input === undefined) {
            tm.emitter.emit('interaction', { kind: 'approved', confirmId, tool: entry.name })
            return end({ approved: true, input: a.input, edited: false })
          }
          const edit = await acceptEdit(entry, outcome.input, a.input)
          if (done) return
          if (!edit.ok) {
            // A call's confirmation stays open (decision 2): ask again with the issues to fix.
            // Inside ctx.confirm the seed's outcome is { approved: false, reason: 'invalid' }.
            if (a.kind === 'call') return ask(edit.issues)
            return end({ approved: false, reason: 'invalid', result: invalid(edit.issues) })
          }
          tm.emitter.emit('interaction', { kind: 'approved', confirmId, tool: entry.name })
          end({ approved: true, input: edit.value, edited: true })
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
