import type { Entry } from '../tool/entry.ts'
import { REDACTED, readSensitivePaths, redactInput, type SensitivePatterns } from '../tool/redact.ts'
import { redactChanges } from '../tool/redact-changes.ts'
import { threw } from '../tool/threw.ts'
import type { Caller, ConfirmationCardData, FieldChange, ToolResult } from '../types.ts'
import type { ConfirmHost } from './host.ts'

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

/** A confirmation ready to show: the redacted input, the summary, the changes and the form snapshot. */
export interface PreparedConfirmation {
  readonly shown: ShownInput
  readonly summary: string
  readonly changes: readonly FieldChange[]
  /** JSON of the tool's `snapshot()` when the user is asked (form tools), else undefined. */
  readonly snapshot: string | undefined
}

/**
 * Prepares the confirmation of a call, inline or deferred: a summary, changes or snapshot hook that
 * throws reports `tool_threw` and answers `error "Tool failed"` instead.
 */
export function prepareConfirmation(
  tm: Pick<ConfirmHost, 'report'>,
  entry: Entry,
  input: unknown,
  callId: string,
): PreparedConfirmation | ToolResult {
  const shown = showInput(entry, input)
  let summary: string
  let changes: readonly FieldChange[]
  try {
    summary = summaryOf(entry, shown.value)
    changes = changesOf(entry, input)
  } catch (err) {
    return threw(tm, entry, callId, 'summary', err)
  }
  try {
    const snapshot = entry.def.snapshot ? JSON.stringify(entry.def.snapshot()) : undefined
    return { shown, summary, changes, snapshot }
  } catch (err) {
    return threw(tm, entry, callId, 'snapshot', err)
  }
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
  prepared: PreparedConfirmation,
  expiresAt: number,
): ConfirmationCardData {
  const { shown } = prepared
  const card: ConfirmationCardData = {
    confirmId,
    tool: entry.name,
    summary: prepared.summary,
    destructive: entry.hintClass === 'destructive',
    caller,
    input: shown.value,
    changes: redactChanges([...prepared.changes], shown.paths),
    expiresAt,
  }
  if (entry.def.title !== undefined) card.title = entry.def.title
  if (entry.def.undoable === true) card.undoable = true
  const target = (shown.value as { name?: unknown } | null | undefined)?.name
  if (typeof target === 'string' && target !== REDACTED) card.target = target
  return card
}

/**
 * The card summary: the tool's `summary` (a string, or a function of the input with its sensitive
 * paths `'[redacted]'`, so a summary never shows a secret), else its title or name.
 */
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
