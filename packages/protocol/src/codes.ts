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

/** Exact `error` result messages. */
export const ERROR_MESSAGES = {
  toolFailed: 'Tool failed',
  notSerializable: 'Result not serializable',
  unsupportedProtocol: 'unsupported protocol',
} as const

/** The exact `refused` message of `unknown_tool` (alone, so the bridge bundles no other message). */
export const UNKNOWN_TOOL_MESSAGE = 'Unknown tool'

/** Exact `refused` messages. */
export const REFUSED_MESSAGES = {
  unknown_tool: UNKNOWN_TOOL_MESSAGE,
  stale: 'The tool list changed; use the latest manifest',
  staleForm: 'Form changed since confirmation was requested',
  staleTool: 'Tool changed since confirmation was requested',
  not_allowed: 'This caller may not call this tool',
  busy: 'Too many pending calls for this scope',
  undo_unavailable: 'Nothing to undo for this call',
  confirmation_expired: 'The confirmation expired or was already used',
} as const

/** One `refused` result code. */
export type RefusedCode = keyof typeof REFUSED_CODES
