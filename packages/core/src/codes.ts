/**
 * Every code Toolmark emits, as `as const` tables. The code tables map each code to itself
 * (`REFUSED_CODES.stale === 'stale'`), so they serve as enums and as lists (`Object.keys`); what each
 * code means is in its doc comment and in `docs/reference/codes.md`, which a test checks against
 * these tables, so the two cannot drift. (Descriptions as values would ship in every bundle.)
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

/** `error` event codes (`tm.events.on('error')`); with `dev: true` misconfiguration throws them. */
export const ERROR_EVENT_CODES = {
  /** A tool (or its llmName) collides with a registered tool. */
  duplicate_name: 'duplicate_name',
  /** Tool name does not match ^[A-Za-z0-9_.-]{1,128}$. */
  invalid_name: 'invalid_name',
  /** Registration used a scope object from another registry. */
  invalid_scope: 'invalid_scope',
  /** A consequential/destructive tool has no confirmation path for an allowed caller. */
  missing_confirm_handler: 'missing_confirm_handler',
  /** No JSON Schema could be derived for a tool's input (production registers it with inputSchema: {}). */
  schema_conversion_failed: 'schema_conversion_failed',
  /** A tool's run, validator, summary or snapshot threw (result: error "Tool failed"). */
  tool_threw: 'tool_threw',
  /** A tool's output failed its output schema (development only). */
  output_invalid: 'output_invalid',
  /** A transport failed to send/close, or a result was not serializable. */
  transport_failed: 'transport_failed',
  /** More visible tools than budget (default 40); dev only, once per revision. */
  tool_budget_exceeded: 'tool_budget_exceeded',
  /** ctx.confirm was used by a caller without an inline confirmation path. */
  ctx_confirm_unavailable: 'ctx_confirm_unavailable',
  /** A confirmMode value that is not allowed for that caller. */
  invalid_confirm_mode: 'invalid_confirm_mode',
  /** A policy.human entry or an unknown hint class. */
  invalid_policy: 'invalid_policy',
  /** A tool settled after its call was abandoned (abort grace period). */
  late_result: 'late_result',
  /** The bridge dropped an inbound message (too large, too deep, malformed, wrong direction). */
  invalid_message: 'invalid_message',
  /** Registration into a disposed scope. */
  scope_disposed: 'scope_disposed',
  /** Development warning: a tool was registered with none of readOnly, consequential, destructive. */
  unannotated_tool: 'unannotated_tool',
  /**
   * Development warning, once per registry: there is no document (server rendering), so the registry
   * is inert; pass live: true to run it without a DOM.
   */
  inert_registry: 'inert_registry',
} as const

/** Codes only ever thrown (or rejected) as `ToolmarkError`, never emitted as events. */
export const THROWN_CODES = {
  /** Path helpers (getPath/setPath/flatten) given an unsafe or malformed path. */
  invalid_path: 'invalid_path',
  /** `ctx.files.resolve` while file support is not configured (it always is today). */
  files_not_configured: 'files_not_configured',
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

/** The issue message for a `'[redacted]'` placeholder that cannot be restored. */
export const REENTER_SENSITIVE = 'Re-enter sensitive field'

export type RefusedCode = keyof typeof REFUSED_CODES
export type ErrorEventCode = keyof typeof ERROR_EVENT_CODES
export type ThrownCode = keyof typeof THROWN_CODES
export type ToolmarkErrorCode = ErrorEventCode | ThrownCode
