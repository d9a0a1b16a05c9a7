import type { Pipeline } from './call/call.ts'
import type { Deadlines } from './call/deadlines.ts'
import type { CallHost } from './call/host.ts'
import { type CallChunk, callChunk } from './call/lazy.ts'
import { UndoStore } from './call/undo.ts'
import { later } from './clock.ts'
import { NO_CONFIRMATIONS } from './confirm/limits.ts'
import type { PendingStore } from './confirm/pending.ts'
import {
  type CallMetas,
  Consumers,
  observe,
  redact,
  run,
  setStatus,
  watch,
  watchContext,
} from './consumer.ts'
import { environment } from './env.ts'
import { ToolmarkError } from './errors.ts'
import { readOptions, type Settings } from './options.ts'
import { allows, type OptionProblem } from './policy/policy.ts'
import { type ManifestSource, Manifests } from './registry/manifest.ts'
import { type RegistryHost, ToolTable } from './registry/registry.ts'
import { checkBudget, Revisions } from './registry/revisions.ts'
import { anchorOf, type HooksHost, stateOf } from './registry/tour-hooks.ts'
import { Reporter } from './report.ts'
import type { Entry } from './tool/entry.ts'
import { cancelled, refused, TOOL_FAILED } from './tool/result.ts'
import type {
  Caller,
  CallOptions,
  ConsumerHost,
  ConsumerStatus,
  Manifest,
  ToolDefinition,
  ToolManifest,
  ToolManifestSummary,
  Toolmark,
  ToolmarkOptions,
  ToolResult,
} from './types.ts'

/** Development-only code tests `process.env.NODE_ENV` where it sits (the rule: report.ts). */
declare const process: { env: { NODE_ENV?: string } }

/**
 * Creates a registry: the single place that validates input, applies policy, asks for confirmation
 * and runs tools, whoever calls. Without `document` (server rendering) registration and consumers
 * are inert, unless `live: true`.
 */
export function createToolmark(options: ToolmarkOptions = {}): Toolmark {
  return new ToolmarkImpl(options)
}

/**
 * The registry. It only composes: error events (`report.ts`), the typed settings read once from the
 * options (`options.ts`), the tool table and its scopes (`registry/registry.ts`), revisions
 * (`registry/revisions.ts`), manifests (`registry/manifest.ts`), tour hooks
 * (`registry/tour-hooks.ts`), the call pipeline (`call/`), confirmations (`confirm/`) and consumers
 * (`consumer.ts`). Each part gets the one narrow interface it declares, built here from the others;
 * nothing but the public API is a member of the registry.
 */
class ToolmarkImpl implements ConsumerHost {
  readonly dev: boolean
  readonly events: Reporter['events']
  readonly #options: ToolmarkOptions
  readonly #reporter: Reporter
  /** Open confirmations, once the first is made. */
  #pending: PendingStore | undefined
  readonly #revisions: Revisions
  readonly #table: ToolTable
  readonly #manifests: Manifests
  /** What the call pipeline gets from the registry. */
  readonly #calls: CallHost
  /** The call pipeline, created with the first call once its module is here (call/lazy.ts). */
  #pipeline: Pipeline | undefined
  /** Calls waiting for the pipeline's module: a call made meanwhile waits behind them, in order. */
  #waiting = 0
  /** Meta of calls started through `run`, until each resolves. */
  readonly #callMeta: CallMetas = new Map()
  readonly #hooks: HooksHost
  readonly #consumers = new Consumers<ConsumerHost>()
  /** What consumers published with `status`, by name. */
  readonly #statuses: Record<string, ConsumerStatus> = {}

  constructor(options: ToolmarkOptions) {
    const reporter = new Reporter(options.dev === true)
    const { dev, emitter } = reporter
    this.#options = options
    this.#reporter = reporter
    this.dev = dev
    this.events = reporter.events
    const problems: OptionProblem[] = []
    const settings: Settings = readOptions(options, problems)
    const report = reporter.report.bind(reporter)
    const warn = reporter.warn.bind(reporter)
    const conversionFailed = reporter.conversionFailed.bind(reporter)
    // Only the pipeline (loaded by then) reads `pending` and `deadlines`: each is created at first use.
    const chunk = (): CallChunk => callChunk.value as CallChunk
    const pending = (): PendingStore => (this.#pending ??= new (chunk().PendingStore)(settings.expiryMs))
    let deadlines: Deadlines | undefined
    const revisions = new Revisions((rev) => {
      if (process.env.NODE_ENV !== 'production' && dev)
        checkBudget({ dev, budget: settings.budget, manifest: () => this.manifest(), warn })
      emitter.emit('change', { rev })
    })
    // The hosts take the settings as they are (policy, modes, the durations) and add what each needs.
    const registry: RegistryHost & Settings = {
      ...settings,
      dev,
      options,
      revisions,
      dropPending: (scopes) => this.#pending?.dropScopes(scopes),
      active: () => this.#active(),
      misconfigured: reporter.misconfigured.bind(reporter),
      warn,
      conversionFailed,
    }
    const table = new ToolTable(registry)
    const visible = (entry: Entry, caller: Caller): boolean => allows(registry, entry, caller)
    // The manifests and the tour hooks read this host too, each through the interface it declares.
    const calls: CallHost & ManifestSource & HooksHost = {
      ...registry,
      emitter,
      get pending() {
        return pending()
      },
      get deadlines() {
        deadlines ??= new (chunk().Deadlines)()
        return deadlines
      },
      undoStore: new UndoStore(),
      get rev() {
        return revisions.rev
      },
      tools: table.tools,
      lookup: (name, caller) => manifests.lookup(name, caller),
      allows: visible,
      wentStale: (name, rev) => table.wentStale(name, rev),
      report,
    }
    const manifests = new Manifests(calls)
    this.#revisions = revisions
    this.#table = table
    this.#manifests = manifests
    this.#calls = calls
    this.#hooks = calls
    for (const p of problems) {
      if (dev) throw new ToolmarkError(p.code, p.message)
      // Listeners attach after creation: report on the next microtask so they hear it.
      queueMicrotask(() => report(p.code, p.message))
    }
  }

  get rev(): number {
    return this.#revisions.rev
  }

  /** Registrations and consumers are inert without `document`, unless `live`. */
  #active(): boolean {
    return this.#options.live === true || !environment.isServer()
  }

  // Error events: report.ts. What a consumer reports never throws.
  report: ConsumerHost['report'] = (code, message, extra) => this.#reporter.report(code, message, extra)

  // Registration and scopes: registry/registry.ts (the table owns its scopes).
  register: ConsumerHost['register'] = (tool, options) =>
    this.#table.register(tool as ToolDefinition, options)
  context: ConsumerHost['context'] = (entry, options) => this.#table.context(entry, options)
  readContext: ConsumerHost['readContext'] = (options) => this.#table.contexts.snapshot(options?.caller)
  watchContext: ConsumerHost['watchContext'] = (options, listener) =>
    watchContext(this.#table.contexts, this.#revisions, options.caller, listener)
  scope: ConsumerHost['scope'] = (name, options) => this.#table.createScope(this.#table.root, name, options)
  subscribe: ConsumerHost['subscribe'] = (listener) => this.#revisions.subscribe(listener)

  // Manifests and lookup: registry/manifest.ts; what a caller may see: policy/policy.ts.
  manifest(options: { caller?: Caller; detail: 'full' }): Manifest<ToolManifest>
  manifest(options?: { caller?: Caller; detail?: 'summary' }): Manifest
  manifest(options?: { caller?: Caller; detail?: 'summary' | 'full' }): Manifest<ToolManifestSummary> {
    return this.#manifests.manifest(options?.caller, options?.detail === 'full')
  }
  describe: ConsumerHost['describe'] = (name, options) => this.#manifests.describe(name, options?.caller)
  info: ConsumerHost['info'] = (name) => this.#manifests.info(name)

  // Tour hooks: registry/tour-hooks.ts.
  state: ConsumerHost['state'] = (name) => stateOf(this.#hooks, name)
  anchor: ConsumerHost['anchor'] = (name, param) => anchorOf(this.#hooks, name, param)

  // Calls, confirmations, undo: call/call.ts and confirm/deferred.ts.
  call: ConsumerHost['call'] = (name, input, options) => {
    // Only a registry without tools reads process.env here (a cost in Node, see report.ts).
    if (this.#table.tools.size === 0 && process.env.NODE_ENV !== 'production' && !this.#active())
      this.#reporter.sayInert()
    const m = callChunk.value
    return m && this.#waiting === 0
      ? this.#pipelineOf(m).call(name, input, options)
      : this.#callOnceLoaded(name, input, options)
  }
  /**
   * A call made before the pipeline's module is here waits for it, within the call's deadline and
   * signal (either ending the wait answers `cancelled`), then goes through the pipeline as if made then.
   */
  async #callOnceLoaded(name: string, input: unknown, options: CallOptions): Promise<ToolResult> {
    const signal = options?.signal
    let stop: (() => void) | undefined
    const ended = new Promise<undefined>((resolve) => {
      const end = () => resolve(undefined)
      const cancel = later(end, this.#calls.timeoutMs)
      signal?.addEventListener('abort', end, { once: true })
      stop = () => {
        cancel()
        signal?.removeEventListener('abort', end)
      }
      if (signal?.aborted) end()
    })
    this.#waiting++
    let m: CallChunk | undefined
    try {
      m = await Promise.race([callChunk.load(), ended])
    } catch (err) {
      this.#reporter.report('tool_threw', `Call of "${String(name)}" failed`, {
        tool: String(name),
        cause: err,
      })
      return TOOL_FAILED
    } finally {
      this.#waiting--
      stop?.()
    }
    if (!m) return cancelled('signal')
    return this.#pipelineOf(m).call(name, input, options)
  }
  /** The pipeline, made with the first call once its module is here. */
  #pipelineOf(m: CallChunk): Pipeline {
    this.#pipeline ??= new m.Pipeline(this.#calls)
    return this.#pipeline
  }
  // Confirmations and undo records are made by calls: none yet, nothing to complete.
  confirmPending: ConsumerHost['confirmPending'] = (confirmId, outcome) =>
    this.#pipeline?.confirmPending(confirmId, outcome) ?? Promise.resolve(refused('confirmation_expired'))
  // The published confirmation chunk has its own copy of NO_CONFIRMATIONS: an empty list is this one.
  pendingConfirmations: ConsumerHost['pendingConfirmations'] = () => {
    const list = this.#pending?.deferred()
    return list === undefined || list.length === 0 ? NO_CONFIRMATIONS : list
  }
  undo: ConsumerHost['undo'] = (callId) =>
    this.#pipeline?.undo(callId) ?? Promise.resolve(refused('undo_unavailable'))
  expirePending: ConsumerHost['expirePending'] = (confirmId) => !!this.#pending?.expire(confirmId)

  // Consumers, and what they get besides the registry: consumer.ts.
  use: ConsumerHost['use'] = (consumer) => (this.#active() ? this.#consumers.use(consumer, this) : () => {})
  watch: ConsumerHost['watch'] = (options, listener: (m: never) => void) => watch(this, options, listener)
  observe: ConsumerHost['observe'] = (observer) => observe(this.events, this.#callMeta, observer)
  run: ConsumerHost['run'] = (name, input, options) => run(this, this.#callMeta, name, input, options)
  redact: ConsumerHost['redact'] = (tool, value) => redact(this.#table.tools, tool, value)
  status: ConsumerHost['status'] = (name, status) =>
    setStatus(this.#statuses, (p) => this.#reporter.emitter.emit('status', p), name, status)
  statuses: ConsumerHost['statuses'] = () => ({ ...this.#statuses })
}
