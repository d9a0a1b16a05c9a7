import {
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type ElicitResult,
  SdkError,
  SdkErrorCode,
  type Server,
} from '@modelcontextprotocol/server'
import type { PairingConfirmedMessage, PairingConfirmMessage } from '../protocol/messages.ts'

/** How long past the page's expiry the client's answer is still relayed: the page refuses it then. */
const ANSWER_GRACE_MS = 1_000

type Fields = NonNullable<PairingConfirmMessage['fields']>
type FieldSchema = ElicitRequestFormParams['requestedSchema']['properties'][string]

/** True when the client declared form elicitation (`elicitation: {}` means form, as the spec says). */
export function canElicit(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation
  if (typeof elicitation !== 'object' || elicitation === null) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}

/** The form the client shows to confirm a call: the card's text and its editable fields, prefilled. */
export function confirmForm(
  where: { tab: string; origin: string; title?: string },
  msg: PairingConfirmMessage,
): ElicitRequestFormParams {
  const properties: Record<string, FieldSchema> = {}
  for (const [name, value] of Object.entries(msg.fields ?? {})) properties[name] = fieldSchema(name, value)
  return { mode: 'form', message: confirmText(where, msg), requestedSchema: { type: 'object', properties } }
}

/**
 * The page's `confirmed` for the client's answer: accept approves with the fields the user changed
 * (only those the form offered), decline declines, anything else cancels.
 */
export function confirmedFrom(
  msg: PairingConfirmMessage,
  answer: { action: ElicitResult['action']; content?: Record<string, unknown> | undefined },
): PairingConfirmedMessage {
  const fields: Fields = msg.fields ?? {}
  const base = { type: 'confirmed' as const, confirmId: msg.confirmId }
  if (answer.action === 'decline') return { ...base, approved: false, reason: 'declined' }
  if (answer.action !== 'accept') return { ...base, approved: false, reason: 'cancelled' }
  const edits: Fields = {}
  for (const [name, value] of Object.entries(answer.content ?? {}))
    if (name in fields && value !== fields[name] && isField(value)) edits[name] = value
  return Object.keys(edits).length > 0
    ? { ...base, approved: true, input: edits }
    : { ...base, approved: true }
}

/**
 * Asks the MCP client to confirm a call (`elicitation/create`, form mode) with the card's content:
 * the tool, the target, the changes and "This action cannot be undone." for a destructive tool.
 * The editable fields are the form's, prefilled; only the changed ones go back. Never rejects: a
 * client that cannot ask answers `unavailable`, no answer in time `expired`.
 */
export async function elicitConfirmation(
  server: Server,
  where: { tab: string; origin: string; title?: string },
  msg: PairingConfirmMessage,
  signal: AbortSignal,
): Promise<PairingConfirmedMessage> {
  const timeout = Math.max(1, msg.expiresAt - Date.now()) + ANSWER_GRACE_MS
  try {
    return confirmedFrom(msg, await server.elicitInput(confirmForm(where, msg), { timeout, signal }))
  } catch (err) {
    const timedOut = err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout
    const base = { type: 'confirmed' as const, confirmId: msg.confirmId }
    return { ...base, approved: false, reason: timedOut || signal.aborted ? 'expired' : 'unavailable' }
  }
}

/** The prompt's text: what the in-page card shows, in plain lines. */
export function confirmText(
  where: { tab: string; origin: string; title?: string },
  msg: PairingConfirmMessage,
): string {
  const page = where.title
    ? `"${where.title}" (${where.origin}, tab ${where.tab})`
    : `${where.origin} (tab ${where.tab})`
  const lines = [`Confirm ${msg.title ?? msg.tool} in ${page}:`, msg.summary]
  if (msg.target !== undefined) lines.push(`Target: ${msg.target}`)
  if (msg.changes.length > 0) {
    lines.push('Changes:')
    for (const c of msg.changes) {
      const before = 'before' in c ? `${JSON.stringify(c.before)} → ` : ''
      lines.push(`- ${c.path}: ${before}${JSON.stringify(c.after)}`)
    }
  }
  for (const issue of msg.issues ?? []) lines.push(`Fix ${issue.path || 'the input'}: ${issue.message}`)
  if (msg.destructive && msg.undoable !== true) lines.push('This action cannot be undone.')
  else if (msg.undoable === true) lines.push('The page offers an undo afterwards.')
  return lines.join('\n')
}

function fieldSchema(name: string, value: string | number | boolean): FieldSchema {
  if (typeof value === 'boolean') return { type: 'boolean', title: name, default: value }
  if (typeof value === 'number')
    return { type: Number.isInteger(value) ? 'integer' : 'number', title: name, default: value }
  return { type: 'string', title: name, default: value }
}

function isField(value: unknown): value is string | number | boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  )
}
