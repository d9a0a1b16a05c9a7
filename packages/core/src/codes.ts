/**
 * Every code Toolmark emits, as `as const` tables. The code tables map each code to itself
 * (`REFUSED_CODES.stale === 'stale'`), so they serve as enums and as lists (`Object.keys`); what each
 * code means is in its doc comment and in `docs/reference/codes.md`, which a test checks against
 * these tables, so the two cannot drift. (Descriptions as values would ship in every bundle.)
 */

// The codes and messages that travel in results are part of the wire contract: they live in
// @toolmark/protocol (what servers import) and are re-exported here for the page side.
export {
  ERROR_MESSAGES,
  REFUSED_CODE_MESSAGES,
  REFUSED_CODES,
  REFUSED_MESSAGES,
  type RefusedCode,
  TOOL_FAILED_MESSAGE,
  UNKNOWN_TOOL_MESSAGE,
} from '@toolmark/protocol'

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
  /** A readable context value that is not JSON or is larger than MAX_CONTEXT_CHARS (the entry shows null), or a whole context larger than contextBridge sends (it sends an empty one). */
  invalid_context: 'invalid_context',
  /** Registration into a disposed scope. */
  scope_disposed: 'scope_disposed',
  /** Development warning: a tool was registered with none of readOnly, consequential, destructive. */
  unannotated_tool: 'unannotated_tool',
  /**
   * Development warning, once per registry: there is no document (server rendering), so the registry
   * is inert; pass live: true to run it without a DOM.
   */
  inert_registry: 'inert_registry',
  /**
   * A destructive tool declared grantable (registration fails), or an approval's remember that
   * cannot be kept (warning; the approval counts once).
   */
  invalid_grant: 'invalid_grant',
  /** The grant store threw or rejected (a lookup asks for confirmation; an add keeps nothing). */
  grant_store_failed: 'grant_store_failed',
} as const

/** Codes only ever thrown (or rejected) as `ToolmarkError`, never emitted as events. */
export const THROWN_CODES = {
  /** Path helpers (getPath/setPath/flatten) given an unsafe or malformed path. */
  invalid_path: 'invalid_path',
  /** `ctx.files.resolve` while file support is not configured (it always is today). */
  files_not_configured: 'files_not_configured',
} as const

/** The issue message for a `'[redacted]'` placeholder that cannot be restored. */
export const REENTER_SENSITIVE = 'Re-enter sensitive field'

export type ErrorEventCode = keyof typeof ERROR_EVENT_CODES
export type ThrownCode = keyof typeof THROWN_CODES
export type ToolmarkErrorCode = ErrorEventCode | ThrownCode
