import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { ErrorEventCode, RefusedCode } from './codes.ts'

/** Who is calling a tool. Policy and confirmation behaviour depend on it. */
export type Caller = 'inapp' | 'webmcp' | 'mcp' | 'tour' | 'test' | 'human'

/** Hints drive policy and confirmation. `destructive` implies a confirmation like `consequential`. */
export interface ToolHints {
  readOnly?: boolean
  consequential?: boolean
  destructive?: boolean
  untrustedContent?: boolean
}

/**
 * The class a policy reasons about. A tool's class is `destructive` if it is destructive, else
 * `consequential`, else `readOnly`, else `unannotated`.
 */
export type HintClass = 'readOnly' | 'consequential' | 'destructive' | 'unannotated'

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>

/** One validation problem. `path` is dot-joined (`cards.0.cvc`), `''` for the root. */
export interface Issue {
  path: string
  message: string
}

/** A field-level change shown to the user before approval. Sensitive values read `'[redacted]'`. */
export interface FieldChange {
  path: string
  before?: unknown
  after?: unknown
}

/** Who ended a cancelled call. */
export type CancelledBy = 'operator' | 'signal' | 'policy'

export interface OkResult<T = unknown> {
  status: 'ok'
  /** Absent means "no value". */
  data?: T
}
export interface InvalidResult {
  status: 'invalid'
  issues: Issue[]
}
export interface RefusedResult {
  status: 'refused'
  code: RefusedCode
  message: string
  /** Only for `unknown_tool` and `stale`: the registry's current revision. */
  rev?: number
}
export interface NeedsConfirmationResult {
  status: 'needs_confirmation'
  confirmId: string
  summary: string
  changes: FieldChange[]
}
export interface CancelledResult {
  status: 'cancelled'
  by: CancelledBy
}
export interface ErrorResult {
  status: 'error'
  message: string
}

/** Every outcome of a call: plain JSON, never an exception. */
export type ToolResult<T = unknown> =
  | OkResult<T>
  | InvalidResult
  | RefusedResult
  | NeedsConfirmationResult
  | CancelledResult
  | ErrorResult

/** What a tool's `run` may return: any result but `needs_confirmation` (which only the registry creates). */
export type RunResult<T = unknown> = Exclude<ToolResult<T>, NeedsConfirmationResult>

/** Outcome of a confirmation: approved (optionally with edited input) or not. */
export type ConfirmOutcome = { approved: true; input?: unknown } | { approved: false; reason?: string }

/** Outcome of `ctx.confirm(...)`. It never throws. */
export type CtxConfirmOutcome =
  | { approved: true; input?: unknown }
  | { approved: false; reason: 'rejected' | 'confirmation_unavailable' | 'invalid' | 'expired' | 'cancelled' }

/** What a confirmation card needs to render a request (inline or deferred). */
export interface ConfirmationCardData {
  confirmId: string
  /** Full tool name. */
  tool: string
  title?: string
  /** App-localized summary of what will happen. */
  summary: string
  /** The call's string `name` argument when present (what the action targets). */
  target?: string
  /** True for destructive tools: render a Delete button and "This action cannot be undone.". */
  destructive: boolean
  /**
   * Present (`true`) when the tool declares `undoable`: the page offers an undo afterwards, so the card
   * says so instead of "This action cannot be undone.".
   */
  undoable?: true
  /** The caller that asked. */
  caller: Caller
  /** The input with `'[redacted]'` at sensitive paths. */
  input: unknown
  /** Redacted field changes (`[]` for plain tools). */
  changes: FieldChange[]
  /** Epoch milliseconds after which approval is refused. */
  expiresAt: number
}

/** An inline confirmation request handed to the app's `confirm` handler. */
export interface ConfirmRequest extends ConfirmationCardData {
  /** `call` before a consequential tool runs; `ctx` for `ctx.confirm(...)` inside `run`. */
  kind: 'call' | 'ctx'
  /** Aborted when the call is cancelled or the request expires: close the prompt. */
  signal: AbortSignal
  /**
   * Present when the approver's previous edit was invalid (e.g. "Re-enter sensitive field"): the
   * request is asked again with what to fix, and stays open until approved, rejected or expired.
   */
  issues?: Issue[]
}

/** The app's inline confirmation handler: ask the user, resolve with their answer. */
export type ConfirmHandler = (request: ConfirmRequest) => ConfirmOutcome | Promise<ConfirmOutcome>

/** A deferred confirmation waiting for `tm.confirmPending(...)`. */
export interface PendingConfirmation extends ConfirmationCardData {
  /** Epoch milliseconds when it was created. */
  createdAt: number
  /** The call that created it. */
  callId: string
}

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
   * The page lets the user undo this tool's effect afterwards (its `run` calls `ctx.registerUndo` and the
   * page shows an Undo control). Confirmation cards then say "This action can be undone from the page."
   * instead of "This action cannot be undone."; policy and the Delete label do not change.
   */
  undoable?: boolean
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
  /** A nested scope. */
  scope(name: string, options?: ScopeOptions): Scope
  /** Replace `when` and re-evaluate visibility. */
  setWhen(when: boolean | (() => boolean)): void
  /** Dispose its tools, nested scopes and pending confirmations. Idempotent. */
  dispose(): void
}

/** One manifest entry as sent to agents. */
export interface ToolManifestSummary {
  name: string
  llmName: string
  title?: string
  description: string
  hints: ToolHints
  /**
   * The tool's `sensitivePaths` as declared (read once at registration; `['']` when they cannot be
   * read), present only when it declares some: a server masks the input values at these paths
   * before it stores, logs or streams a call. An extension field of protocol v1 manifest entries.
   */
  sensitivePaths?: readonly string[]
  /** `'stepwise'` for the tools of a stepwise wizard (steps are filled and advanced in order). */
  mode?: 'stepwise'
}

/** A full entry, with schemas. */
export interface ToolManifest extends ToolManifestSummary {
  inputSchema: JsonSchema
  outputSchema?: JsonSchema
}

export interface Manifest<T extends ToolManifestSummary = ToolManifestSummary> {
  rev: number
  tools: T[]
}

/** Registration details for devtools and tours. */
export interface ToolInfo extends ToolManifestSummary {
  /** The scope path (`''` at the root). */
  scope: string
  /** Visible right now (its scopes' `when` all true). */
  visible: boolean
  /** Whether a non-human caller needs the user's approval to run it. */
  needsConfirmation: boolean
}

export interface CallOptions {
  caller: Caller
  /** The manifest revision the caller last saw: a gone tool is then `refused stale`, not `unknown_tool`. */
  rev?: number
  signal?: AbortSignal
  /** Override the call id (bridges pass theirs); a fresh UUID otherwise. */
  callId?: string
}

/** Per-caller policy: the hint classes each caller may see and call. Omitted callers allow all. */
export type Policy = Partial<Record<Exclude<Caller, 'human'>, readonly HintClass[]>>

export type ConfirmMode = 'deferred' | 'inline'

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
}

/** Events. Each `on` returns an unsubscribe function. */
export interface ToolmarkEvents {
  call: { callId: string; tool: string; caller: Caller; input: unknown }
  result: { callId: string; tool: string; caller: Caller; result: ToolResult; durationMs: number }
  confirm:
    | { phase: 'requested'; mode: ConfirmMode; request: ConfirmationCardData; callId: string }
    | {
        phase: 'settled'
        mode: ConfirmMode
        confirmId: string
        callId: string
        tool: string
        outcome: 'approved' | 'rejected' | 'expired' | 'stale' | 'cancelled'
        /** Deferred only: the final result, what a bridge sends as `confirmed`. */
        result?: ToolResult
      }
  interaction: { kind: 'approved' | 'rejected'; confirmId: string; tool: string }
  change: { rev: number }
  error: ToolmarkErrorEvent
}

export interface ToolmarkErrorEvent {
  code: ErrorEventCode
  message: string
  level: 'error' | 'warning'
  tool?: string
  callId?: string
  /** The underlying error, page-side only. */
  cause?: unknown
}

export type ToolmarkEventName = keyof ToolmarkEvents

/**
 * A consumer attached with `tm.use(consumer)`: it gets the registry as a {@link ConsumerHost} and
 * returns its own cleanup. `tm.use` ref-counts it and never calls it without `document` (SSR).
 */
export type ToolmarkConsumer = (host: ConsumerHost) => (() => void) | undefined

/**
 * Data a consumer attaches to a call it runs (for example `{ traceparent }` from an MCP client).
 * Observers receive it with that call's events; it never reaches the tool.
 */
export type CallMeta = Readonly<Record<string, unknown>>

/** Options of {@link ConsumerHost.run}: a call's options plus its {@link CallMeta}. */
export interface ConsumerRunOptions extends CallOptions {
  meta?: CallMeta
}

/**
 * Watches calls of every caller. Each handler gets the event and the {@link CallMeta} of the call
 * (from {@link ConsumerHost.run}), `undefined` when it has none. A throwing handler is logged and
 * never breaks the call.
 */
export interface CallObserver {
  call?(event: ToolmarkEvents['call'], meta: CallMeta | undefined): void
  result?(event: ToolmarkEvents['result'], meta: CallMeta | undefined): void
  confirm?(event: ToolmarkEvents['confirm'], meta: CallMeta | undefined): void
}

/** What a consumer may add to an error event it reports. */
export interface ConsumerReport {
  /** `'error'` (default) or `'warning'`. */
  level?: 'error' | 'warning'
  tool?: string
  callId?: string
  /** The underlying error, page-side only. */
  cause?: unknown
}

/**
 * What `tm.use(consumer)` hands a consumer: the registry plus the few things every consumer
 * (bridge, WebMCP, MCP pairing, OpenTelemetry, tours) needs. See the consumers guide.
 */
export interface ConsumerHost extends Toolmark {
  /** Emits an `error` event (never throws, also with `dev: true`: what a consumer sees is data, not config). */
  report(code: ErrorEventCode, message: string, extra?: ConsumerReport): void
  /**
   * Calls `listener` now with the manifest visible to `caller`, then once per published revision
   * (never twice for the same `rev`). Returns the unsubscribe function.
   */
  watch(
    options: { caller: Caller; detail: 'full' },
    listener: (manifest: Manifest<ToolManifest>) => void,
  ): () => void
  watch(options: { caller: Caller; detail?: 'summary' }, listener: (manifest: Manifest) => void): () => void
  /** Observes calls, results and confirmations of every caller, with their {@link CallMeta}. */
  observe(observer: CallObserver): () => void
  /**
   * Runs a call for the consumer's caller: `tm.call`, with `meta` handed to observers of this call
   * until it resolves. Never rejects. Before a result crosses a boundary, pass it through
   * `toJsonSafeResult` (from `@toolmark/core`).
   */
  run(name: string, input: unknown, options: ConsumerRunOptions): Promise<ToolResult>
  /**
   * `value` with `'[redacted]'` at `tool`'s sensitive paths (for results a consumer records);
   * `'[redacted]'` as a whole when the tool is not registered any more or its paths cannot be read.
   */
  redact(tool: string, value: unknown): unknown
}

/** The registry: what `createToolmark(options)` returns. */
export interface Toolmark {
  /**
   * Register a tool (at the root, or in `options.scope`) and bump `rev`. A bad name, a taken name, a
   * disposed or foreign scope or an underivable schema throws `ToolmarkError` in development; in
   * production it is an `error` event and the returned handle is inert. Inert without `document` too.
   */
  register<S extends AnySchema | undefined = undefined, O = unknown>(
    tool: ToolDefinition<S, O>,
    options?: RegisterOptions,
  ): ToolHandle
  /** A named group of tools with one lifetime (`when`, `transparent`); a bad name is `invalid_name`. */
  scope(name: string, options?: ScopeOptions): Scope
  /**
   * The tools `caller` may see (without `caller`: every visible tool), sorted by name, with `rev`.
   * `detail: 'full'` adds the schemas. The same object is returned until `rev` changes.
   */
  manifest(options: { caller?: Caller; detail: 'full' }): Manifest<ToolManifest>
  manifest(options?: { caller?: Caller; detail?: 'summary' }): Manifest
  /** The full entry (with `inputSchema`) of a tool `caller` may see; `undefined` for any other name. */
  describe(name: string, options?: { caller?: Caller }): ToolManifest | undefined
  /**
   * Run a tool for `options.caller`: lookup, policy, validation, confirmation, the scope's queue, `run`.
   * Never throws or rejects: bad input or a failing tool is a result (`refused`, `invalid`, `error`, ...).
   */
  call(name: string, input: unknown, options: CallOptions): Promise<ToolResult>
  /**
   * Answer a deferred confirmation as the user: approve (optionally with an edited input, re-validated)
   * or reject. Resolves to the tool's outcome; an unknown, used or expired id is `refused
   * confirmation_expired`. Never rejects.
   */
  confirmPending(confirmId: string, outcome: ConfirmOutcome): Promise<ToolResult>
  /** The open deferred confirmations (redacted input), oldest first. */
  pendingConfirmations(): readonly PendingConfirmation[]
  /** Run the restorer a call registered with `ctx.registerUndo`, once; none is `refused undo_unavailable`. */
  undo(callId: string): Promise<ToolResult>
  /**
   * Called with the new `rev` after registration or visibility changes, at most once per microtask.
   * Returns the unsubscribe function.
   */
  subscribe(listener: (rev: number) => void): () => void
  /** Event listeners (`call`, `result`, `confirm`, `interaction`, `change`, `error`); a throwing listener is logged. */
  readonly events: {
    on<E extends ToolmarkEventName>(event: E, listener: (payload: ToolmarkEvents[E]) => void): () => void
  }
  /**
   * Attach a consumer (bridge, WebMCP, MCP, ...) and return its dispose function. The same consumer is
   * attached once and ref-counted; without `document` (SSR) this does nothing.
   */
  use(consumer: ToolmarkConsumer): () => void
  /** The element of a tool's anchor (or of one parameter's); `null` when there is none or it throws. */
  anchor(name: string, param?: string): Element | null
  /** A tool's `state()`, redacted at its sensitive paths; `undefined` for an unknown tool or a throwing `state`. */
  state(name: string): unknown
  /** Registration details (scope, visibility, whether it confirms) of a registered tool; else `undefined`. */
  info(name: string): ToolInfo | undefined
  /** The current manifest revision; every registration or visibility change bumps it. */
  readonly rev: number
  /** Whether this is a development registry (`options.dev`). */
  readonly dev: boolean
}
