/** A tool as an app declares it, what its `run` gets and returns, and the scopes it lives in. */

import type { StandardSchemaV1 } from '@standard-schema/spec'
import type {
  FieldChange,
  JsonSchema,
  NeedsConfirmationResult,
  ToolHints,
  ToolResult,
} from '@toolmark/protocol'
import type { CtxConfirmOutcome } from './confirm.ts'
import type { ContextDefinition, ContextHandle } from './context.ts'
import type { Caller, ToolCaller } from './policy.ts'

/** What a tool's `run` may return: any result but `needs_confirmation` (which only the registry creates). */
export type RunResult<T = unknown> = Exclude<ToolResult<T>, NeedsConfirmationResult>

/** Where a tool lives on the page: a CSS selector or a function returning the element. */
export type AnchorTarget = string | (() => Element | null | undefined)

/** Tour hooks: the tool's own element and one per input parameter. */
export interface ToolAnchors {
  tool?: AnchorTarget
  params?: Record<string, AnchorTarget>
}

/** File handling context. File support is not configured yet: `resolve` throws `ToolmarkError('files_not_configured')`. */
export interface ToolFiles {
  resolve(ref: unknown): Promise<never>
}

/** The second argument of `run`. */
export interface ToolContext {
  /** Aborted on cancel, caller abort or deadline. Created lazily. */
  readonly signal: AbortSignal
  /** This call's id: the key for `tm.undo(callId)` and the `callId` of its events. */
  readonly callId: string
  /** Who called (`'human'` when the user approved a deferred confirmation). */
  readonly caller: Caller
  /** Ask the user mid-run. Never throws; see the confirmation guide for per-caller behaviour. */
  confirm(request: { summary: string; changes?: FieldChange[] }): Promise<CtxConfirmOutcome>
  /** File handling; `files.resolve` throws `ToolmarkError('files_not_configured')` (not configured yet). */
  readonly files: ToolFiles
  /**
   * Register a restorer for `tm.undo(callId)`; it may return a result, a value (`ok(value)`) or nothing.
   * The last registration of a call wins; the store keeps the latest 100 calls' restorers.
   */
  registerUndo(undo: () => unknown): void
  /**
   * Report how far the run has come: a fraction from 0 to 1, a short message (cut at 200 characters), and/or
   * preliminary data (JSON). Observers get it as a `progress` event. Never throws; ignored once the call has
   * ended. It never extends the call's deadline. Consumers decide how often they pass it on.
   */
  progress(update: ToolProgress): void
}

/** What a running tool reports with `ctx.progress`: any of a fraction (0 to 1), a message and preliminary data. */
export interface ToolProgress {
  /** How much is done, from 0 to 1; any other number is left out. */
  fraction?: number
  /** A short note for the user, such as "Uploading 3 of 10". */
  message?: string
  /** A preliminary result (JSON-safe), replaced by the final result when the run ends. */
  data?: unknown
}

/** Anything that validates like Standard Schema v1. */
export type AnySchema = StandardSchemaV1

/** The parsed input type of a schema (`unknown` without one). */
export type InferInput<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : unknown

/** A tool: declared once, callable by every consumer. */
export interface ToolDefinition<S extends AnySchema | undefined = AnySchema | undefined, O = unknown> {
  /**
   * Local name: `^[A-Za-z0-9_.-]{1,128}$` with no empty dot segment; the full name is the scope path + `.` +
   * name. A bad or taken name is `invalid_name` / `duplicate_name`: thrown in development, an `error` event
   * in production (the handle is then inert).
   */
  name: string
  /** LLM-facing: what the tool does and when to use it. Whitespace is collapsed in rendered manifests. */
  description: string
  /** User-facing, app-localized name for cards and devtools; without `summary` a card shows it (else the name). */
  title?: string
  /**
   * User-facing summary for confirmation cards: a string or built from the validated (redacted) input.
   * A throwing function answers the call `error "Tool failed"` with a `tool_threw` event.
   */
  summary?: string | ((input: InferInput<S>) => string)
  /**
   * Standard Schema v1 (zod, valibot, ArkType, `fromJsonSchema`). Validated before `run`; input that fails
   * is answered `invalid` with `issues[{ path, message }]` and `run` never starts.
   */
  input?: S
  /** Standard Schema for `ok` data; validated only in development (a mismatch emits `output_invalid`, the result is kept). */
  output?: StandardSchemaV1<unknown, O>
  /**
   * JSON Schema override for the manifest's `inputSchema`. Without `input`, input is validated against it
   * (`fromJsonSchema` subset; the compiler is loaded on demand unless the registry was given
   * `fromJsonSchema`, see `ToolmarkOptions.fromJsonSchema`). When neither gives a schema,
   * `schema_conversion_failed` (thrown in development; in production the entry gets `inputSchema: {}`).
   */
  jsonSchema?: JsonSchema
  /**
   * Safety class (`readOnly`, `consequential`, `destructive`) and `untrustedContent`: decide policy and
   * confirmation. None of the three is "unannotated" (a development warning; consequential with
   * `confirmUnannotated`).
   */
  hints?: ToolHints
  /**
   * The callers that may see and call this tool (`inapp`, `webmcp`, `mcp`, `tour`, `test`); omitted,
   * every caller may. To any other caller the tool does not exist: it is absent from that caller's
   * manifest, `describe` gives `undefined` and a call is refused `unknown_tool`. The policy still
   * applies to the callers listed. A user's approval of a deferred confirmation runs as `human`, so
   * it works for a call an allowed caller made. An empty list or a name that is not one of those
   * callers throws a `TypeError` at registration.
   */
  callers?: readonly ToolCaller[]
  /**
   * The page lets the user undo this tool's effect afterwards (its `run` calls `ctx.registerUndo` and the
   * page shows an Undo control). Confirmation cards then say "This action can be undone from the page."
   * instead of "This action cannot be undone."; policy and the Delete label do not change.
   */
  undoable?: boolean
  /**
   * The user may remember an approval of this tool ("for this conversation", "always for N days"):
   * a matching grant then lets the call run without a card. Bound to the tool's fingerprint and the
   * caller kind. A destructive tool cannot be grantable (`invalid_grant` at registration).
   */
  grantable?: boolean
  /**
   * Where the tool and its parameters live on the page (CSS selectors or functions returning an
   * element), for tours via `tm.anchor`. A selector that matches nothing or a throwing function gives `null`.
   */
  anchors?: ToolAnchors
  /** Current values for tours; redacted at `sensitivePaths` by `tm.state` (a throw gives `undefined` and `tool_threw`). */
  state?: () => unknown
  /**
   * For form and wizard tools: a snapshot of the values the tool acts on. An approval (deferred or
   * inline) whose snapshot changed since the request is refused `stale` ("Form changed since
   * confirmation was requested").
   */
  snapshot?: () => unknown
  /**
   * For form and wizard tools: the field changes a confirmation shows for this input (the card's
   * and `needs_confirmation`'s `changes`, redacted at `sensitivePaths`). Without it, `[]`.
   */
  changes?: (input: InferInput<S>) => readonly FieldChange[]
  /** `'stepwise'` for the tools of a stepwise wizard; carried into the manifest. */
  mode?: 'stepwise'
  /** Input paths (dot paths such as `card.cvc`) kept out of confirmation payloads, telemetry and `state()`. `[]` matches any index. */
  sensitivePaths?: readonly string[] | (() => readonly string[])
  /**
   * Does the work with the validated input. Return a result (`ok(data)`, `invalid(...)`, ...); `undefined`
   * means `ok()`. A throw, a rejection or anything that is not exactly a result shape is answered
   * `error "Tool failed"` with a `tool_threw` event.
   */
  run(input: InferInput<S>, ctx: ToolContext): RunResult<O> | undefined | Promise<RunResult<O> | undefined>
}

/** What `register` returns. `dispose()` is idempotent. */
export interface ToolHandle {
  /** Full name. */
  readonly name: string
  dispose(): void
}

export interface RegisterOptions {
  scope?: Scope
  /** Aborting it disposes the registration. */
  signal?: AbortSignal
}

export interface ScopeOptions {
  /** While it returns false the scope's tools are hidden. Re-evaluated on every revision and call. */
  when?: boolean | (() => boolean)
  /** A transparent scope adds no name segment and shares its parent's call queue. */
  transparent?: boolean
}

/** A named group of tools with one lifetime. */
export interface Scope {
  /** The name segment (`''` for transparent scopes). */
  readonly name: string
  /** The dotted prefix its tools get (`''` at the root). */
  readonly path: string
  readonly disposed: boolean
  /** Register a tool in this scope. */
  register<S extends AnySchema | undefined = undefined, O = unknown>(
    tool: ToolDefinition<S, O>,
    options?: Omit<RegisterOptions, 'scope'>,
  ): ToolHandle
  /** Declare a readable context entry in this scope (see `Toolmark.context`). */
  context(entry: ContextDefinition, options?: Omit<RegisterOptions, 'scope'>): ContextHandle
  /** A nested scope. */
  scope(name: string, options?: ScopeOptions): Scope
  /** Replace `when` and re-evaluate visibility. */
  setWhen(when: boolean | (() => boolean)): void
  /** Dispose its tools, context entries, nested scopes and pending confirmations. Idempotent. */
  dispose(): void
}
