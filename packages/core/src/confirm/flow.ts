import { cancelled, invalid, refused, TOOL_FAILED } from '../call/result.ts'
import { clock, later } from '../clock.ts'
import { REFUSED_MESSAGES } from '../codes.ts'
import { newId } from '../ids.ts'
import type { Entry } from '../registry/entry.ts'
import { toIssues } from '../schema/validate.ts'
import type {
  Caller,
  ConfirmationCardData,
  FieldChange,
  Issue,
  PendingConfirmation,
  ToolResult,
} from '../types.ts'
import type { ConfirmHost } from './host.ts'
import type { PendingRecord } from './pending.ts'
import {
  REDACTED,
  readSensitivePaths,
  redactChanges,
  redactInput,
  restoreRedacted,
  type SensitivePatterns,
} from './redact.ts'

/** How an inline confirmation ended. */
export type InlineOutcome =
  | {
      approved: true
      input: unknown
      edited: boolean
      /** Whether the approval has expired since (checked again where the approved run starts). */
      expired: () => boolean
    }
  | {
      approved: false
      reason: 'rejected' | 'expired' | 'stale' | 'cancelled' | 'invalid'
      result: ToolResult
    }

/** What a confirmation may show of an input: the sensitive paths, read once, and the redacted input. */
export interface ShownInput {
  readonly paths: SensitivePatterns
  /** The input with every sensitive path `'[redacted]'` (the whole input when the paths cannot be read). */
  readonly value: unknown
}

/** Redacts `input` for a confirmation; everything a card, event or result shows derives from it. */
export function showInput(entry: Entry, input: unknown): ShownInput {
  const paths = readSensitivePaths(entry.def.sensitivePaths)
  return { paths, value: redactInput(input, paths).value }
}

/**
 * The card a confirmation shows: redacted input and changes, target, destructive flag, expiry. Every
 * field derives from the redacted input, so a card never carries a secret: a `name` that is
 * sensitive (or an input whose sensitive paths cannot be read) gives no `target`.
 */
export function cardData(
  entry: Entry,
  confirmId: string,
  caller: Caller,
  shown: ShownInput,
  summary: string,
  changes: readonly FieldChange[],
  expiresAt: number,
): ConfirmationCardData {
  const card: ConfirmationCardData = {
    confirmId,
    tool: entry.name,
    summary,
    destructive: entry.hintClass === 'destructive',
    caller,
    input: shown.value,
    changes: redactChanges([...changes], shown.paths),
    expiresAt,
  }
  if (entry.def.title !== undefined) card.title = entry.def.title
  if (entry.def.undoable === true) card.undoable = true
  const target = (shown.value as { name?: unknown } | null | undefined)?.name
  if (typeof target === 'string' && target !== REDACTED) card.target = target
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
  tm: ConfirmHost,
  entry: Entry,
  a: {
    kind: 'call' | 'ctx'
    callId: string
    caller: Caller
    input: unknown
    /** The redacted input, when the caller already computed it. */
    shown?: ShownInput
    summary: string
    changes: readonly FieldChange[]
    signal: AbortSignal | undefined
  },
): Promise<InlineOutcome> {
  return new Promise<InlineOutcome>((resolve) => {
    // An already-aborted call never opens a confirmation.
    if (a.signal?.aborted)
      return resolve({ approved: false, reason: 'cancelled', result: cancelled('signal') })
    const confirmId = newId()
    const createdAt = clock.now()
    const card = cardData(
      entry,
      confirmId,
      a.caller,
      a.shown ?? showInput(entry, a.input),
      a.summary,
      a.changes,
      createdAt + tm.expiryMs,
    )
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
            return end({ approved: true, input: a.input, edited: false, expired: isExpired })
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
          end({ approved: true, input: edit.value, edited: true, expired: isExpired })
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

/**
 * The card summary: the tool's `summary` (a string, or a function of the input with its sensitive
 * paths `'[redacted]'`, so a summary never shows a secret), else its title or name.
 */
export function summaryOf(entry: Entry, input: unknown): string {
  const s = entry.def.summary
  if (typeof s === 'function') return String(s(input as never))
  return s ?? entry.def.title ?? entry.name
}

/** The field changes a confirmation shows: the tool's `changes(input)` (form tools), else none. */
export function changesOf(entry: Entry, input: unknown): readonly FieldChange[] {
  const changes = entry.def.changes?.(input as never)
  return Array.isArray(changes) ? changes : []
}

/** Reports a throwing tool hook (`tool_threw`) and answers `error "Tool failed"`. */
export function threw(
  tm: Pick<ConfirmHost, 'report'>,
  entry: Entry,
  callId: string | undefined,
  what: string,
  err: unknown,
): ToolResult {
  tm.report('tool_threw', `The ${what} of "${entry.name}" threw`, {
    tool: entry.name,
    ...(callId === undefined ? {} : { callId }),
    cause: err,
  })
  return TOOL_FAILED
}
