import { MAX_ID_LENGTH, PROTOCOL_VERSION } from './messages.ts'

/** The outcome of the extension validators: the message itself, or why it was rejected. */
export type ExtendedValidationResult<M> = { ok: true; message: M } | { ok: false; reason: string }

/**
 * Agent → page (extension `confirm`): answer the deferred confirmation `confirmId` for the user. Answered
 * with exactly one `result` for `id`: the return value of `tm.confirmPending` (an edit that fails validation
 * answers `invalid` and leaves the confirmation open).
 */
export interface ConfirmMessage {
  protocol: typeof PROTOCOL_VERSION
  type: 'confirm'
  clientId: string
  id: string
  confirmId: string
  /** True: approve (the tool runs as caller `human`); false: reject (`cancelled operator`). */
  approved: boolean
  /** Only with `approved: true`: the edited input, validated again by the page. */
  input?: { [key: string]: unknown }
  /** Only with `approved: false`: why, for the page's own records. */
  reason?: string
}

/** Longest `reason` of a rejecting `confirm`, in UTF-16 code units. */
export const MAX_CONFIRM_REASON = 1000

const KEYS = ['protocol', 'type', 'clientId', 'id', 'confirmId', 'approved', 'input', 'reason']

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const isId = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && [...v].length <= MAX_ID_LENGTH

/** Why `m` is not a valid `confirm` message, or undefined when it is. */
function problem(m: Record<string, unknown>): string | undefined {
  if (m.protocol !== PROTOCOL_VERSION || m.type !== 'confirm') return 'not a protocol 1 confirm'
  for (const key in m) if (!KEYS.includes(key)) return `unknown property ${key}`
  for (const key of ['clientId', 'id', 'confirmId']) if (!isId(m[key])) return `bad ${key}`
  if (typeof m.approved !== 'boolean') return 'approved must be a boolean'
  if (m.input !== undefined && (!m.approved || !isObject(m.input)))
    return 'input: an object, only when approved'
  if (
    m.reason !== undefined &&
    (m.approved || typeof m.reason !== 'string' || m.reason.length > MAX_CONFIRM_REASON)
  )
    return `reason: at most ${MAX_CONFIRM_REASON} characters, only when rejected`
  return undefined
}

/**
 * Validates an agent → page `confirm` message (extension `confirm`) strictly: what a page that announced the
 * extension runs before applying one. Never throws.
 */
export function validateConfirmMessage(value: unknown): ExtendedValidationResult<ConfirmMessage> {
  try {
    const reason = isObject(value) ? problem(value) : 'not an object'
    return reason === undefined
      ? { ok: true, message: value as ConfirmMessage }
      : { ok: false, reason: `confirm: ${reason}` }
  } catch {
    return { ok: false, reason: 'message could not be read' }
  }
}
