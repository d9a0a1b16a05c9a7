import { Pipeline } from './call/call.ts'
import { Deadlines } from './call/deadlines.ts'
import type { CallHost } from './call/host.ts'
import { UndoStore } from './call/undo.ts'
import type { ErrorEventCode } from './codes.ts'
import { PendingStore } from './confirm/pending.ts'
import { redactInput } from './confirm/redact.ts'
import { observe, redact, run, watch } from './consumer.ts'
import { DEV } from './dev.ts'
import { environment } from './env.ts'
import { ToolmarkError } from './errors.ts'
import { Emitter } from './events.ts'
import { compileModes, compilePolicy, type OptionProblem } from './policy/policy.ts'
import type { Entry } from './registry/entry.ts'
import { Manifests } from './registry/manifest.ts'
import { Revisions } from './registry/notify.ts'
import { type RegistryHost, ToolTable } from './registry/registry.ts'
import type { ScopeHost, ScopeImpl } from './registry/scope.ts'
import type {
  AnySchema,
  Caller,
  CallMeta,
  CallObserver,
  ConfirmMode,
  ConsumerHost,
  ConsumerRunOptions,
  HintClass,
  Manifest,
  RegisterOptions,
  Scope,
  ScopeOptions,
  ToolDefinition,
  ToolHandle,
  ToolInfo,
  ToolManifest,
  ToolManifestSummary,
  Toolmark,
  ToolmarkConsumer,
  ToolmarkErrorEvent,
  ToolmarkOptions,
  ToolResult,
} from './types.ts'

/** Documented defaults. */
export const DEFAULTS = {
  confirmExpiryMs: 600_000,
  callTimeoutMs: 30_000,
  abortGraceMs: 1_000,
  budget: 40,
} as const

/**
 * Creates a registry: the single place that validates input, applies policy, asks for confirmation
 * and runs tools, whoever calls. Without `document` (server rendering) registration and consumers
 * are inert, unless `live: true`.
 */
export function createToolmark(options: ToolmarkOptions = {}): Toolmark {
  return new ToolmarkImpl(options, false)
}

/**
 * @internal The registry: composes the tool table (`registry/registry.ts`), revisions and
 * notification (`registry/notify.ts`), manifests (`registry/manifest.ts`), the call pipeline
 * (`call/`) and confirmations (`confirm/`). `forceActive` keeps it working without `document`.
 */
export class ToolmarkImpl implements ConsumerHost, CallHost, RegistryHost, ScopeHost {
  readonly dev: boolean
  readonly options: ToolmarkOptions
  readonly emitter = new Emitter()
  readonly events = { on: this.emitter.on.bind(this.emitter) }
  readonly policy: Map<Caller, ReadonlySet<HintClass>>
  readonly modes: Record<Exclude<Caller, 'human'>, ConfirmMode>
  readonly expiryMs: number
  readonly timeoutMs: number
  readonly graceMs: number
  readonly budget: number
  readonly deadlines = new Deadlines()
  readonly undoStore = new UndoStore()
  readonly pending: PendingStore
  readonly revisions: Revisions
  readonly table: ToolTable
  readonly manifests: Manifests
  readonly pipeline: Pipeline
  readonly #forceActive: boolean
  readonly #consumers = new Map<ToolmarkConsumer, { count: number; cleanup: (() => void) | undefined }>()
  #budgetRev = -1
  #saidInert = false

  constructor(options: ToolmarkOptions, forceActive: boolean) {
    this.options = options
    this.dev = options.dev === true
    this.#forceActive = forceActive
    const problems: OptionProblem[] = []
    this.policy = compilePolicy(options.policy, problems)
    this.modes = compileModes(options.confirmMode, problems)
    this.expiryMs = positive(options.confirmExpiryMs, DEFAULTS.confirmExpiryMs)
    this.timeoutMs = positive(options.callTimeoutMs, DEFAULTS.callTimeoutMs)
    this.graceMs = positive(options.abortGraceMs, DEFAULTS.abortGraceMs, true)
    this.budget = positive(options.budget, DEFAULTS.budget)
    this.pending = new PendingStore(this.expiryMs)
    this.revisions = new Revisions((rev) => this.#published(rev))
    this.table = new ToolTable(this, this)
    this.manifests = new Manifests(this)
    this.pipeline = new Pipeline(this)
    for (const p of problems) {
      if (this.dev) throw new ToolmarkError(p.code, p.message)
      // Listeners attach after creation: report on the next microtask so they hear it.
      queueMicrotask(() => this.report(p.code, p.message))
    }
  }

  get rev(): number {
    return this.revisions.rev
  }

  get tools(): ReadonlyMap<string, Entry> {
    return this.table.tools
  }

  /** Registrations and consumers are inert without `document`, unless `live` (or a test registry). */
  active(): boolean {
    return this.#forceActive || this.options.live === true || !environment.isServer()
  }

  /**
   * A development registry that is inert says so once, the first time it is called: server
   * rendering registers (inertly) but never calls, so it stays silent there.
   */
  #sayInert(): void {
    if (!DEV || !this.dev || this.#saidInert || this.active()) return
    this.#saidInert = true
    const message =
      'No document: this registry is inert (server rendering), so it registers nothing and every call answers unknown_tool. Pass live: true to createToolmark to run it without a DOM (Node scripts, tests, CLIs).'
    if (this.emitter.has('error')) this.warn('inert_registry', message)
    else console.warn(`[toolmark] inert_registry: ${message}`)
  }

  // ── Error events ────────────────────────────────────────────────────────────

  /** Emits an `error` event (always a warning or a production report). */
  report(code: ErrorEventCode, message: string, extra?: Partial<ToolmarkErrorEvent>): void {
    this.emitter.emit('error', { code, message, level: 'error', ...extra })
  }

  /** Misconfiguration: throws in development, reports in production. */
  misconfigured(code: ErrorEventCode, message: string, tool?: string): void {
    if (this.dev) throw new ToolmarkError(code, message)
    this.report(code, message, tool === undefined ? {} : { tool })
  }

  warn(code: ErrorEventCode, message: string, tool?: string): void {
    if (DEV && this.dev)
      this.emitter.emit('error', { code, message, level: 'warning', ...(tool === undefined ? {} : { tool }) })
  }

  conversionFailed(entry: Entry, err: unknown): void {
    this.report('schema_conversion_failed', `JSON Schema conversion failed for "${entry.name}"`, {
      tool: entry.name,
      cause: err,
    })
  }

  /** A revision is published: the `change` event, and the tool budget check in development. */
  #published(rev: number): void {
    if (DEV && this.dev && this.#budgetRev !== rev) {
      this.#budgetRev = rev
      const visible = this.manifest().tools.length
      if (visible > this.budget) {
        this.warn('tool_budget_exceeded', `${visible} visible tools exceed the budget of ${this.budget}`)
      }
    }
    this.emitter.emit('change', { rev })
  }

  // ── Registration and scopes: see registry/registry.ts ───────────────────────

  register<S extends AnySchema | undefined = undefined, O = unknown>(
    tool: ToolDefinition<S, O>,
    options?: RegisterOptions,
  ): ToolHandle {
    return this.table.register(tool as unknown as ToolDefinition, options)
  }

  scope(name: string, options?: ScopeOptions): Scope {
    return this.table.createScope(this.table.root, name, options)
  }

  /** Scopes reach the table through the registry (so `tm.register` sees scoped registrations too). */
  createScope(parent: ScopeImpl, name: string, options: ScopeOptions | undefined): Scope {
    return this.table.createScope(parent, name, options)
  }

  disposeScope(scope: ScopeImpl): void {
    this.table.disposeScope(scope)
  }

  whenChanged(scope: ScopeImpl, wasVisible: boolean): void {
    this.table.whenChanged(scope, wasVisible)
  }

  subscribe(listener: (rev: number) => void): () => void {
    return this.revisions.subscribe(listener)
  }

  wentStale(name: string, rev: number | undefined): boolean {
    return this.table.wentStale(name, rev)
  }

  // ── Manifests: see registry/manifest.ts ─────────────────────────────────────

  /** Whether `caller` may see (and so call) `entry` under policy and confirmation paths. */
  allows(entry: Entry, caller: Caller): boolean {
    if (caller === 'human') return true
    if (!this.policy.get(caller)?.has(entry.hintClass)) return false
    return !(entry.confirms && this.modes[caller] === 'inline' && this.options.confirm === undefined)
  }

  manifest(options: { caller?: Caller; detail: 'full' }): Manifest<ToolManifest>
  manifest(options?: { caller?: Caller; detail?: 'summary' }): Manifest
  manifest(options?: { caller?: Caller; detail?: 'summary' | 'full' }): Manifest<ToolManifestSummary> {
    return this.manifests.manifest(options?.caller, options?.detail === 'full')
  }

  lookup(name: string, caller: Caller | undefined): Entry | undefined {
    return this.manifests.lookup(name, caller)
  }

  describe(name: string, options?: { caller?: Caller }): ToolManifest | undefined {
    return this.manifests.describe(name, options?.caller)
  }

  info(name: string): ToolInfo | undefined {
    return this.manifests.info(name)
  }

  // ── Tour hooks ──────────────────────────────────────────────────────────────

  state(name: string): unknown {
    const entry = this.tools.get(name)
    if (!entry?.def.state) return undefined
    try {
      return redactInput(entry.def.state(), entry.def.sensitivePaths).value
    } catch (err) {
      this.report('tool_threw', `state() of "${name}" threw`, { tool: name, cause: err })
      return undefined
    }
  }

  anchor(name: string, param?: string): Element | null {
    const anchors = this.tools.get(name)?.def.anchors
    const target = param === undefined ? anchors?.tool : anchors?.params?.[param]
    if (target === undefined) return null
    try {
      if (typeof target === 'function') return target() ?? null
      return typeof document === 'undefined' ? null : document.querySelector(target)
    } catch (err) {
      this.report('tool_threw', `anchor of "${name}" threw`, { tool: name, cause: err })
      return null
    }
  }

  // ── Calls, confirmations, undo: see call/call.ts and confirm/deferred.ts ────

  call: Toolmark['call'] = (name, input, options) => {
    if (this.table.tools.size === 0) this.#sayInert()
    return this.pipeline.call(name, input, options)
  }
  confirmPending: Toolmark['confirmPending'] = (confirmId, outcome) =>
    this.pipeline.deferred.confirmPending(confirmId, outcome)
  pendingConfirmations: Toolmark['pendingConfirmations'] = () => this.pending.deferred()
  undo: Toolmark['undo'] = (callId) => this.pipeline.undo(callId)

  // ── Consumers ───────────────────────────────────────────────────────────────

  use(consumer: ToolmarkConsumer): () => void {
    if (!this.active()) return () => {}
    let slot = this.#consumers.get(consumer)
    if (slot) slot.count++
    else {
      slot = { count: 1, cleanup: undefined }
      this.#consumers.set(consumer, slot)
      slot.cleanup = consumer(this) ?? undefined
    }
    const s = slot
    let done = false
    return () => {
      if (done) return
      done = true
      if (--s.count > 0) return
      this.#consumers.delete(consumer)
      s.cleanup?.()
    }
  }

  // ── What a consumer gets besides the registry (ConsumerHost): see consumer.ts ─

  /** Meta of calls started through `run`, until each resolves. */
  readonly callMeta = new Map<string, CallMeta>()
  watch(
    options: { caller: Caller; detail: 'full' },
    listener: (m: Manifest<ToolManifest>) => void,
  ): () => void
  watch(options: { caller: Caller; detail?: 'summary' }, listener: (m: Manifest) => void): () => void
  watch(options: { caller: Caller; detail?: 'summary' | 'full' }, listener: (m: never) => void): () => void {
    return watch(this, options, listener)
  }
  observe(observer: CallObserver): () => void {
    return observe(this, observer)
  }
  run(name: string, input: unknown, options: ConsumerRunOptions): Promise<ToolResult> {
    return run(this, name, input, options)
  }
  redact(tool: string, value: unknown): unknown {
    return redact(this, tool, value)
  }
}

function positive(value: number | undefined, fallback: number, allowZero = false): number {
  return typeof value === 'number' && Number.isFinite(value) && (allowZero ? value >= 0 : value > 0)
    ? value
    : fallback
}
