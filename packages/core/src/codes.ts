/**
 * Every code Toolmark emits, as `as const` tables. `docs/reference/codes.md` is checked against
 * these tables by a test, so the two cannot drift.
 */

/** `refused` result codes (`result.code`). */
export const REFUSED_CODES = {
  unknown_tool: 'No such tool, or not visible (carries the current rev).',
  stale:
    'The call\'s rev is out of date and the tool is gone (carries rev); also a deferred form submit approved after the form changed ("Form changed since confirmation was requested") or an approval whose tool registration is gone ("Tool changed since confirmation was requested").',
  not_allowed: "The caller's policy does not allow this tool (or it has no confirmation path for it).",
  busy: "The tool's scope already has 32 pending calls.",
  undo_unavailable:
    'tm.undo(callId) found no restorer (never registered, already used or evicted from the 100-entry undo store).',
  confirmation_expired: 'The confirmId expired, was already used, or was evicted.',
} as const

/** `error` event codes (`tm.events.on('error')`); with `dev: true` misconfiguration throws them. */
export const ERROR_EVENT_CODES = {
  duplicate_name: 'A tool (or its llmName) collides with a registered tool.',
  invalid_name: 'Tool name does not match ^[A-Za-z0-9_.-]{1,128}$.',
  invalid_scope: 'Registration used a scope object from another registry.',
  missing_confirm_handler: 'A consequential/destructive tool has no confirmation path for an allowed caller.',
  schema_conversion_failed:
    "No JSON Schema could be derived for a tool's input (production registers it with inputSchema: {}).",
  tool_threw: 'A tool\'s run, validator, summary or snapshot threw (result: error "Tool failed").',
  output_invalid: "A tool's output failed its output schema (development only).",
  transport_failed: 'A transport failed to send/close, or a result was not serializable.',
  tool_budget_exceeded: 'More visible tools than budget (default 40); dev only, once per revision.',
  ctx_confirm_unavailable: 'ctx.confirm was used by a caller without an inline confirmation path.',
  invalid_confirm_mode: 'A confirmMode value that is not allowed for that caller.',
  invalid_policy: 'A policy.human entry or an unknown hint class.',
  late_result: 'A tool settled after its call was abandoned (abort grace period).',
  invalid_message: 'The bridge dropped an inbound message (too large, too deep, malformed, wrong direction).',
  scope_disposed: 'Registration into a disposed scope.',
  unannotated_tool:
    'Development warning: a tool was registered with none of readOnly, consequential, destructive.',
} as const

/** Codes only ever thrown (or rejected) as `ToolmarkError`, never emitted as events. */
export const THROWN_CODES = {
  invalid_path: 'Path helpers (getPath/setPath/flatten) given an unsafe or malformed path.',
  files_not_configured: 'ctx.files.resolve in M1 (file support lands in M2).',
} as const

/** Exact `error` result messages. */
export const ERROR_MESSAGES = {
  toolFailed: 'Tool failed',
  notSerializable: 'Result not serializable',
  unsupportedProtocol: 'unsupported protocol',
} as const

/** Exact `refused` messages. */
export const REFUSED_MESSAGES = {
  unknown_tool: 'Unknown tool',
  stale: 'The tool list changed; use the latest manifest',
  staleForm: 'Form changed since confirmation was requested',
  staleTool: 'Tool changed since confirmation was requested',
  not_allowed: 'This caller may not call this tool',
  busy: 'Too many pending calls for this scope',
  undo_unavailable: 'Nothing to undo for this call',
  confirmation_expired: 'The confirmation expired or was already used',
} as const

/** The issue message for a `'[redacted]'` placeholder that cannot be restored. */
export const REENTER_SENSITIVE = 'Re-enter sensitive field'

export type RefusedCode = keyof typeof REFUSED_CODES
export type ErrorEventCode = keyof typeof ERROR_EVENT_CODES
export type ThrownCode = keyof typeof THROWN_CODES
export type ToolmarkErrorCode = ErrorEventCode | ThrownCode
