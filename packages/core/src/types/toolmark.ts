/** The registry `createToolmark` returns, and what `tm.use(consumer)` hands a consumer. */

import type { Manifest, ToolManifest, ToolManifestSummary, ToolResult } from '@toolmark/protocol'
import type { ErrorEventCode } from '../codes.ts'
import type { ConfirmOutcome, PendingConfirmation } from './confirm.ts'
import type { ContextDefinition, ContextHandle, ContextSnapshot } from './context.ts'
import type { ConsumerStatus, ToolmarkEventName, ToolmarkEvents } from './events.ts'
import type { CallOptions } from './options.ts'
import type { Caller, ToolCaller } from './policy.ts'
import type { AnySchema, RegisterOptions, Scope, ScopeOptions, ToolDefinition, ToolHandle } from './tool.ts'

/** Registration details for devtools and tours. */
export interface ToolInfo extends ToolManifestSummary {
  /** The scope path (`''` at the root). */
  scope: string
  /** Visible right now (its scopes' `when` all true). */
  visible: boolean
  /** Whether a non-human caller needs the user's approval to run it. */
  needsConfirmation: boolean
  /** The callers the tool is limited to (its `callers` option); absent: every caller. */
  callers?: ToolCaller[]
}

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
  /** A running call reported progress (`ctx.progress`). */
  progress?(event: ToolmarkEvents['progress'], meta: CallMeta | undefined): void
  /**
   * A call answered before its tool's `run` started (refused by the policy, an unknown or stale
   * tool, invalid input, a full queue, cancelled), with the reason as data. Reported only while
   * an observer with this handler is attached.
   */
  blocked?(event: ToolmarkEvents['blocked'], meta: CallMeta | undefined): void
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
  /**
   * Calls `listener` now with the context entries visible to `caller`, then each time that view
   * changes (an entry added, removed, shown, hidden or given a different value), at most once per
   * microtask. Returns the unsubscribe function.
   */
  watchContext(options: { caller: Caller }, listener: (context: ContextSnapshot) => void): () => void
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
  /**
   * Publishes this consumer's live status under `name` (`'bridge'`, `'webmcp'`, ...) for
   * inspectors, replacing the previous one; `undefined` withdraws it (on dispose).
   */
  status(name: string, status: ConsumerStatus | undefined): void
  /** The statuses consumers have published, by name. */
  statuses(): Readonly<Record<string, ConsumerStatus>>
  /**
   * Expires an open deferred confirmation now, as its expiry would: it leaves `pendingConfirmations()`
   * and settles as `expired` (`refused confirmation_expired`). Returns false when it is not open.
   */
  expirePending(confirmId: string): boolean
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
  /**
   * Declare a readable context entry (at the root, or in `options.scope`): read-only JSON the agent
   * sees, masked at `sensitivePaths`, gone when its handle or scope is disposed. Names, scopes and
   * errors follow `register`; a value that is not JSON or too large is `null` and `invalid_context`.
   */
  context(entry: ContextDefinition, options?: RegisterOptions): ContextHandle
  /**
   * The context entries `caller` may see (every visible entry without `caller`): masked values,
   * sorted by name, with the context revision. A caller the policy gives no tool sees none.
   */
  readContext(options?: { caller?: Caller }): ContextSnapshot
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
