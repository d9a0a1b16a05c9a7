import { Pipeline } from './call/call.ts'
import { Deadlines } from './call/deadlines.ts'
import { UndoStore } from './call/undo.ts'
import type { ErrorEventCode } from './codes.ts'
import { PendingStore } from './confirm/pending.ts'
import { redactInput } from './confirm/redact.ts'
import { observe, redact, run, watch } from './consumer.ts'
import { environment } from './env.ts'
import { ToolmarkError } from './errors.ts'
import { Emitter } from './events.ts'
import { compileModes, compilePolicy, NON_HUMAN_CALLERS, type OptionProblem } from './policy/policy.ts'
import { Entry } from './registry/entry.ts'
import { isValidName } from './registry/names.ts'
import { type ScopeHost, ScopeImpl } from './registry/scope.ts'
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

const INERT_HANDLE_DISPOSE = (): void => {}

/**
 * Creates a registry: the single place that validates input, applies policy, asks for confirmation
 * and runs tools, whoever calls. Without `document` (SSR, D24) registration and consumers are inert.
 */
export function createToolmark(options: ToolmarkOptions = {}): Toolmark {
  return new ToolmarkImpl(options, false)
}

/** @internal The registry. `forceActive` keeps it working without `document` (test registries). */
export class ToolmarkImpl implements ConsumerHost, ScopeHost {
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
  readonly root: ScopeImpl
  readonly tools = new Map<string, Entry>()
  readonly deadlines = new Deadlines()
  readonly undoStore = new UndoStore()
  readonly pending: PendingStore
  readonly pipeline: Pipeline
  readonly #forceActive: boolean
  readonly #llmNames = new Map<string, Entry>()
  /** Full name → the revision at which it stopped being available (D18 `stale`). */
  readonly #goneAt = new Map<string, number>()
  /** Scopes whose `when` was ever set, with the visibility last published. */
  readonly #conditional = new Map<ScopeImpl, boolean>()
  readonly #listeners = new Set<(rev: number) => void>()
  readonly #consumers = new Map<ToolmarkConsumer, { count: number; cleanup: (() => void) | undefined }>()
  readonly #manifests = new Map<string, Manifest<ToolManifestSummary>>()
  #manifestRev = -1
  #rev = 0
  #publishedRev = 0
  #budgetRev = -1
  #scheduled = false

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
    this.root = new ScopeImpl(this, undefined, '')
    this.pending = new PendingStore(this.expiryMs)
    this.pipeline = new Pipeline(this)
    for (const p of problems) {
      if (this.dev) throw new ToolmarkError(p.code, p.message)
      // Listeners attach after creation: report on the next microtask so they hear it.
      queueMicrotask(() => this.report(p.code, p.message))
    }
  }

  get rev(): number {
    return this.#rev
  }

  /** Registrations and consumers are inert without `document`, unless this is a test registry. */
  active(): boolean {
    return this.#forceActive || !environment.isServer()
  }

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
    if (this.dev)
      this.emitter.emit('error', { code, message, level: 'warning', ...(tool === undefined ? {} : { tool }) })
  }

  // ── Registration ────────────────────────────────────────────────────────────

  register<S extends AnySchema | undefined = undefined, O = unknown>(
    tool: ToolDefinition<S, O>,
    options?: RegisterOptions,
  ): ToolHandle {
    return this.#register(tool as unknown as ToolDefinition, options)
  }

  #register(tool: ToolDefinition, options: RegisterOptions | undefined): ToolHandle {
    const localName = typeof tool?.name === 'string' ? tool.name : ''
    const inert = (name: string): ToolHandle => ({ name, dispose: INERT_HANDLE_DISPOSE })
    if (!this.active()) {
      const path = options?.scope instanceof ScopeImpl ? options.scope.path : ''
      return inert(path === '' ? localName : `${path}.${localName}`)
    }
    if (typeof tool?.run !== 'function') throw new TypeError('A tool needs a run(input, ctx) function')
    if (typeof tool.description !== 'string') throw new TypeError('A tool needs a description string')
    const scope = options?.scope ?? this.root
    if (!(scope instanceof ScopeImpl) || scope.host !== this) {
      this.misconfigured(
        'invalid_scope',
        `Tool "${localName}" was registered with a scope from another registry`,
      )
      return inert(localName)
    }
    if (scope.disposed) {
      this.misconfigured(
        'scope_disposed',
        `Tool "${localName}" was registered into disposed scope "${scope.path}"`,
      )
      return inert(localName)
    }
    const name = scope.path === '' ? localName : `${scope.path}.${localName}`
    if (!isValidName(localName) || !isValidName(name)) {
      this.misconfigured(
        'invalid_name',
        `Invalid tool name "${name}": use A-Z a-z 0-9 _ - . (at most 128, no empty segment)`,
      )
      return inert(name)
    }
    const entry = new Entry(name, tool, scope, this.options.confirmUnannotated === true)
    const clash = this.tools.get(name) ?? this.#llmNames.get(entry.llmName)
    if (clash) {
      const what =
        clash.name === name ? `"${name}"` : `"${name}" (llmName "${entry.llmName}" of "${clash.name}")`
      this.misconfigured('duplicate_name', `A tool named ${what} is already registered`, name)
      return inert(name)
    }
    if (!this.#checkConfirmPath(entry)) return inert(name)
    if (!entry.canDeriveSchema) {
      this.misconfigured(
        'schema_conversion_failed',
        `No JSON Schema can be derived for "${name}": pass jsonSchema`,
        name,
      )
    } else if (this.dev) {
      entry.full((err) => {
        throw new ToolmarkError('schema_conversion_failed', `JSON Schema conversion failed for "${name}"`, {
          cause: err,
        })
      })
    }
    if (entry.hintClass === 'unannotated') {
      this.warn(
        'unannotated_tool',
        `Tool "${name}" has none of readOnly, consequential, destructive: annotate it`,
        name,
      )
    }
    const signal = options?.signal
    if (signal?.aborted) return inert(name)
    this.tools.set(name, entry)
    this.#llmNames.set(entry.llmName, entry)
    scope.entries.add(entry)
    this.#goneAt.delete(name)
    this.#bump()
    const onAbort = (): void => this.#remove(entry)
    signal?.addEventListener('abort', onAbort, { once: true })
    return {
      name,
      dispose: () => {
        signal?.removeEventListener('abort', onAbort)
        this.#remove(entry)
      },
    }
  }

  /** Seed 000 registration check: fails only when no allowed non-human caller has a path. */
  #checkConfirmPath(entry: Entry): boolean {
    if (!entry.confirms) return true
    const hasHandler = this.options.confirm !== undefined
    let path = false
    const blind: Caller[] = []
    for (const caller of NON_HUMAN_CALLERS) {
      if (!this.policy.get(caller)?.has(entry.hintClass)) continue
      if (this.modes[caller] === 'deferred' || hasHandler) path = true
      else blind.push(caller)
    }
    if (!path) {
      this.misconfigured(
        'missing_confirm_handler',
        `Tool "${entry.name}" needs confirmation but no allowed caller has a confirmation path: pass confirm or allow a deferred caller`,
        entry.name,
      )
      return false
    }
    if (blind.length > 0) {
      this.warn(
        'missing_confirm_handler',
        `Tool "${entry.name}" is hidden from ${blind.join(', ')}: they confirm inline and no confirm handler is set`,
        entry.name,
      )
    }
    return true
  }

  #remove(entry: Entry): void {
    if (entry.disposed) return
    entry.disposed = true
    this.tools.delete(entry.name)
    this.#llmNames.delete(entry.llmName)
    entry.scope.entries.delete(entry)
    this.#bump()
    this.#goneAt.set(entry.name, this.#rev)
    if (this.#goneAt.size > 1000) this.#goneAt.delete(this.#goneAt.keys().next().value as string)
  }

  scope(name: string, options?: ScopeOptions): Scope {
    return this.createScope(this.root, name, options)
  }

  createScope(parent: ScopeImpl, name: string, options: ScopeOptions | undefined): Scope {
    if (options?.transparent !== true && !isValidName(name)) {
      this.misconfigured('invalid_name', `Invalid scope name "${name}"`)
    }
    if (parent.disposed)
      this.misconfigured('scope_disposed', `Scope "${name}" was created in a disposed scope`)
    const scope = new ScopeImpl(this, parent, name, options)
    if (parent.disposed) scope.markDisposed()
    else parent.children.add(scope)
    if (options?.when !== undefined && options.when !== true && !parent.disposed)
      this.#conditional.set(scope, scope.visible())
    return scope
  }

  disposeScope(scope: ScopeImpl): void {
    const all = new Set<ScopeImpl>()
    const walk = (s: ScopeImpl): void => {
      all.add(s)
      s.markDisposed()
      for (const child of s.children) walk(child)
    }
    walk(scope)
    scope.parent?.children.delete(scope)
    for (const s of all) {
      this.#conditional.delete(s)
      for (const entry of [...s.entries]) this.#remove(entry)
    }
    this.pending.dropScopes(all)
  }

  whenChanged(scope: ScopeImpl, wasVisible: boolean): void {
    if (!scope.disposed && !this.#conditional.has(scope)) this.#conditional.set(scope, wasVisible)
    this.#schedule()
  }

  // ── Revisions and notifications ─────────────────────────────────────────────

  #bump(): void {
    this.#rev++
    this.#schedule()
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => this.#flush())
  }

  #flush(): void {
    this.#scheduled = false
    let hiddenOrShown = false
    for (const [scope, was] of this.#conditional) {
      const now = scope.visible()
      if (now !== was) {
        this.#conditional.set(scope, now)
        hiddenOrShown = true
      }
    }
    // A visibility change is a revision: tools that vanished are "gone" since the older rev (D18).
    if (hiddenOrShown) this.#rev++
    if (this.#rev === this.#publishedRev) return
    this.#publishedRev = this.#rev
    const rev = this.#rev
    if (this.dev && this.#budgetRev !== rev) {
      this.#budgetRev = rev
      const visible = this.manifest().tools.length
      if (visible > this.budget) {
        this.warn('tool_budget_exceeded', `${visible} visible tools exceed the budget of ${this.budget}`)
      }
    }
    this.emitter.emit('change', { rev })
    for (const listener of [...this.#listeners]) {
      try {
        listener(rev)
      } catch (err) {
        console.error('[toolmark] a subscriber threw', err)
      }
    }
  }

  subscribe(listener: (rev: number) => void): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  /** D18: did `name` disappear after revision `rev`? */
  wentStale(name: string, rev: number | undefined): boolean {
    if (typeof rev !== 'number' || !(rev < this.#rev)) return false
    const gone = this.#goneAt.get(name)
    return gone !== undefined ? gone > rev : this.tools.has(name)
  }

  // ── Manifests ───────────────────────────────────────────────────────────────

  /** Whether `caller` may see (and so call) `entry` under policy and confirmation paths. */
  allows(entry: Entry, caller: Caller): boolean {
    if (caller === 'human') return true
    if (!this.policy.get(caller)?.has(entry.hintClass)) return false
    return !(entry.confirms && this.modes[caller] === 'inline' && this.options.confirm === undefined)
  }

  manifest(options: { caller?: Caller; detail: 'full' }): Manifest<ToolManifest>
  manifest(options?: { caller?: Caller; detail?: 'summary' }): Manifest
  manifest(options?: { caller?: Caller; detail?: 'summary' | 'full' }): Manifest<ToolManifestSummary> {
    const caller = options?.caller
    const full = options?.detail === 'full'
    if (this.#manifestRev !== this.#rev) {
      this.#manifests.clear()
      this.#manifestRev = this.#rev
    }
    const key = `${caller ?? '*'}:${full ? 'f' : 's'}`
    const cached = this.#manifests.get(key)
    if (cached) return cached
    const entries = [...this.tools.values()]
      .filter((e) => e.scope.visible() && (caller === undefined || this.allows(e, caller)))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const tools = entries.map((e) => (full ? this.fullEntry(e) : e.summary))
    const manifest = Object.freeze({ rev: this.#rev, tools: Object.freeze(tools) as ToolManifestSummary[] })
    this.#manifests.set(key, manifest)
    return manifest
  }

  fullEntry(entry: Entry): ToolManifest {
    return entry.full((err) =>
      this.report('schema_conversion_failed', `JSON Schema conversion failed for "${entry.name}"`, {
        tool: entry.name,
        cause: err,
      }),
    )
  }

  /** A visible tool the caller may see, or undefined. */
  lookup(name: string, caller: Caller | undefined): Entry | undefined {
    const entry = typeof name === 'string' ? this.tools.get(name) : undefined
    if (!entry?.scope.visible()) return undefined
    return caller === undefined || this.allows(entry, caller) ? entry : undefined
  }

  describe(name: string, options?: { caller?: Caller }): ToolManifest | undefined {
    const entry = this.lookup(name, options?.caller)
    return entry ? this.fullEntry(entry) : undefined
  }

  info(name: string): ToolInfo | undefined {
    const entry = typeof name === 'string' ? this.tools.get(name) : undefined
    if (!entry) return undefined
    return {
      ...entry.summary,
      scope: entry.scope.path,
      visible: entry.scope.visible(),
      needsConfirmation: entry.confirms,
    }
  }

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

  // ── Calls, confirmations, undo: see call/call.ts ────────────────────────────

  call: Toolmark['call'] = (name, input, options) => this.pipeline.call(name, input, options)
  confirmPending: Toolmark['confirmPending'] = (confirmId, outcome) =>
    this.pipeline.confirmPending(confirmId, outcome)
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
