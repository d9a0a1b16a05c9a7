/** What `createToolmark` and `tm.call` take. */

import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema, ToolManifestSummary } from '@toolmark/protocol'
import type { ConfirmHandler, ConfirmMode } from './confirm.ts'
import type { GrantStore } from './grants.ts'
import type { Caller, Policy } from './policy.ts'

export interface CallOptions {
  caller: Caller
  /** The manifest revision the caller last saw: a gone tool is then `refused stale`, not `unknown_tool`. */
  rev?: number
  signal?: AbortSignal
  /** Override the call id (bridges pass theirs); a fresh UUID otherwise. */
  callId?: string
  /** The conversation the call belongs to: grants "for this conversation" match only its calls. */
  conversation?: string
}

export interface ToolmarkOptions {
  /**
   * Development mode: misconfiguration throws `ToolmarkError`; output is validated; warnings are emitted.
   * A production build (`process.env.NODE_ENV === 'production'`) compiles the warnings and the output
   * check out, so there `dev: true` only makes misconfiguration throw.
   */
  dev?: boolean
  /**
   * Run without a DOM: Node scripts, tests, CLIs and server-side agents. By default a registry
   * created where there is no `document` (server rendering) is inert: `register` returns an inert
   * handle, `use` does nothing and every call answers `refused unknown_tool` (a development registry
   * says so once, on its first call, with the `inert_registry` warning). `live: true` keeps it working there.
   */
  live?: boolean
  /**
   * The hint classes each non-human caller may see and call (omitted callers: all). `human` or an
   * unknown class is `invalid_policy` (thrown in development; in production reported and ignored).
   */
  policy?: Policy
  /**
   * Inline confirmation handler (required for webmcp/mcp/tour to see consequential tools). A throwing
   * handler answers the call `error "Tool failed"`.
   */
  confirm?: ConfirmHandler
  /**
   * Only `inapp` and `test` are configurable. Defaults: inapp deferred, test inline. Any other caller or
   * mode is `invalid_confirm_mode` (thrown in development; in production reported and ignored).
   */
  confirmMode?: Partial<Record<Caller, ConfirmMode>>
  /** How long a confirmation stays open, in ms. Default 600000 (10 minutes); a non-finite or non-positive value uses it. */
  confirmExpiryMs?: number
  /**
   * Call deadline in ms, from the moment the call is accepted. Default 30000. Paused while an inline
   * confirmation is open. A non-finite or non-positive value uses the default.
   */
  callTimeoutMs?: number
  /**
   * How long an aborted tool may take to settle before its call is answered `cancelled`. Default 1000;
   * a non-finite or non-positive value uses it.
   */
  abortGraceMs?: number
  /** Visible tools above this emit `tool_budget_exceeded` in development. Default 40. */
  budget?: number
  /** Treat tools with none of readOnly/consequential/destructive as consequential. Default false. */
  confirmUnannotated?: boolean
  /**
   * An app rule that can only add confirmations (returning false never skips one; never applied to
   * `human`). A throwing rule asks for confirmation.
   */
  requiresConfirmation?: (tool: ToolManifestSummary, call: { input: unknown }, caller: Caller) => boolean
  /**
   * The compiler for tools declared with only a plain `jsonSchema` (pass `fromJsonSchema`). With it,
   * such a tool is compiled when it is registered (an invalid schema throws a `TypeError` from
   * `register`) and every call validates synchronously. Without it the compiler stays out of the
   * bundle until such a tool is registered: it is then loaded on demand, calls made before it arrives
   * wait for it, and an invalid schema answers each call `error "Tool failed"` (`tool_threw`).
   */
  fromJsonSchema?: (schema: JsonSchema) => StandardSchemaV1
  /**
   * Where remembered approvals live (see the Grants section of the confirmation guide). Without it,
   * every confirmation is asked and `remember` is ignored.
   */
  grants?: GrantStore
}
