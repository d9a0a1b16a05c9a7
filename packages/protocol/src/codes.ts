/**
 * The codes and exact messages that travel in results (`refused` codes, `error` and `refused`
 * messages), as `as const` tables: part of protocol v1, so a server checks them without the page
 * side. The code tables map each code to itself (`REFUSED_CODES.stale === 'stale'`); what each code
 * means is in its doc comment and in `docs/reference/codes.md`.
 */

/** `refused` result codes (`result.code`). */
export const REFUSED_CODES = {
  /** No such tool, or not visible (carries the current rev). */
  unknown_tool: 'unknown_tool',
  /**
   * The call's rev is out of date and the tool is gone (carries rev); also a deferred form submit
   * approved after the form changed ("Form changed since confirmation was requested") or an approval
   * whose tool registration is gone ("Tool changed since confirmation was requested").
   */
  stale: 'stale',
  /** The caller's policy does not allow this tool (or it has no confirmation path for it). */
  not_allowed: 'not_allowed',
  /** The tool's scope already has 32 pending calls; also an Inertia form submit while the form is already being submitted. */
  busy: 'busy',
  /**
   * tm.undo(callId) found no restorer (never registered, already used or evicted from the 100-entry
   * undo store).
   */
  undo_unavailable: 'undo_unavailable',
  /** The confirmId expired, was already used, or was evicted. */
  confirmation_expired: 'confirmation_expired',
} as const

/** The exact `error` message of a tool that failed (alone, so a page bundles no other `error` message). */
export const TOOL_FAILED_MESSAGE = 'Tool failed'

/** Exact `error` result messages. */
export const ERROR_MESSAGES = {
  toolFailed: TOOL_FAILED_MESSAGE,
  notSerializable: 'Result not serializable',
  unsupportedProtocol: 'unsupported protocol',
} as const

/** The exact `refused` message of `unknown_tool` (alone, so the bridge bundles no other message). */
export const UNKNOWN_TOOL_MESSAGE = 'Unknown tool'

// Each message once, shared by the two tables below as plain constants: a bundler then drops the
// table a bundle never reads (a property read of the other table would keep both).
const STALE_MESSAGE = 'The tool list changed; use the latest manifest'
const NOT_ALLOWED_MESSAGE = 'This caller may not call this tool'
const BUSY_MESSAGE = 'Too many pending calls for this scope'
const UNDO_UNAVAILABLE_MESSAGE = 'Nothing to undo for this call'
const CONFIRMATION_EXPIRED_MESSAGE = 'The confirmation expired or was already used'

/**
 * The exact message of each `refused` code, keyed by the code alone (what `refused(code)` answers by
 * default): a page that only answers calls bundles these, not the variants `REFUSED_MESSAGES` adds.
 */
export const REFUSED_CODE_MESSAGES = {
  unknown_tool: UNKNOWN_TOOL_MESSAGE,
  stale: STALE_MESSAGE,
  not_allowed: NOT_ALLOWED_MESSAGE,
  busy: BUSY_MESSAGE,
  undo_unavailable: UNDO_UNAVAILABLE_MESSAGE,
  confirmation_expired: CONFIRMATION_EXPIRED_MESSAGE,
} as const

/** Exact `refused` messages: each code's (`REFUSED_CODE_MESSAGES`) and the two variants of `stale`. */
export const REFUSED_MESSAGES = {
  unknown_tool: UNKNOWN_TOOL_MESSAGE,
  stale: STALE_MESSAGE,
  staleForm: 'Form changed since confirmation was requested',
  staleTool: 'Tool changed since confirmation was requested',
  not_allowed: NOT_ALLOWED_MESSAGE,
  busy: BUSY_MESSAGE,
  undo_unavailable: UNDO_UNAVAILABLE_MESSAGE,
  confirmation_expired: CONFIRMATION_EXPIRED_MESSAGE,
} as const

/** One `refused` result code. */
export type RefusedCode = keyof typeof REFUSED_CODES
