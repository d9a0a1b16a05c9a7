import { Pipeline } from './call/call.ts'
import { Deadlines } from './call/deadlines.ts'
import type { CallHost } from './call/host.ts'
import { UndoStore } from './call/undo.ts'
import { PendingStore } from './confirm/pending.ts'
import { Consumers, observe, redact, run, watch } from './consumer.ts'
import { environment } from './env.ts'
import { ToolmarkError } from './errors.ts'
import { readOptions, type Settings } from './options.ts'
import { allows, type OptionProblem } from './policy/policy.ts'
import { anchorOf, stateOf } from './registry/hooks.ts'
import { Manifests } from './registry/manifest.ts'
import { checkBudget, Revisions } from './registry/notify.ts'
import { type RegistryHost, ToolTable } from './registry/registry.ts'
import type { ScopeHost, ScopeImpl } from './registry/scope.ts'
import { Reporter } from './report.ts'
import type { Entry } from './tool/entry.ts'
import type {
  Caller,
  CallMeta,
  ConsumerHost,
  Manifest,
  ScopeOptions,
  ToolDefinition,
  ToolManifest,
  ToolManifestSummary,
  Toolmark,
  ToolmarkOptions,
} from './types.ts'

/**
 * Creates a registry: the single place that validates input, applies policy, asks for confirmation
 * and runs tools, whoever calls. Without `document` (server rendering) registration and consumers
 * are inert, unless `live: true`.
 */
export function createToolmark(options: ToolmarkOptions = {}): Toolmark {
  return new ToolmarkImpl(options, false)
}

/**
 * @internal The registry. It only composes: error events (`report.ts`), options (`options.ts`),
 * the tool table (`registry/registry.ts`), revisions (`registry/notify.ts`), manifests
 * (`registry/manifest.ts`), tour hooks (`registry/hooks.ts`), the call pipeline (`call/`),
 * confirmations (`confirm/`) and consumers (`consumer.ts`), and implements the hosts they declare.
 * `forceActive` keeps it working without `document`.
 */
export class ToolmarkImpl extends Reporter implements ConsumerHost, CallHost, RegistryHost, ScopeHost {
  readonly options: ToolmarkOptions
  // The read options (`options.ts`) are fields, where the hosts read them; set in the constructor.
  declare readonly policy: Settings['policy']
  declare readonly modes: Settings['modes']
  declare readonly expiryMs: number
  declare readonly timeoutMs: number
  declare readonly graceMs: number
  declare readonly budget: number
  readonly deadlines = new Deadlines()
  readonly undoStore = new UndoStore()
  /** Meta of calls started through `run`, until each resolves. */
  readonly callMeta = new Map<string, CallMeta>()
  readonly pending: PendingStore
  readonly revisions: Revisions
  readonly table: ToolTable
  readonly manifests: Manifests
  readonly pipeline: Pipeline
  readonly #forceActive: boolean
  readonly #consumers = new Consumers<ConsumerHost>()

  constructor(options: ToolmarkOptions, forceActive: boolean) {
    super(options.dev === true)
    this.options = options
    this.#forceActive = forceActive
    const problems: OptionProblem[] = []
    Object.assign(this, readOptions(options, problems))
    this.pending = new PendingStore(this.expiryMs)
    this.revisions = new Revisions((rev) => {
      checkBudget(this)
      this.emitter.emit('change', { rev })
    })
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

  // Registration and scopes: registry/registry.ts. Scopes reach the table through the registry.
  register: Toolmark['register'] = (tool, options) => this.table.register(tool as ToolDefinition, options)
  scope: Toolmark['scope'] = (name, options) => this.table.createScope(this.table.root, name, options)
  createScope = (parent: ScopeImpl, name: string, options: ScopeOptions | undefined) =>
    this.table.createScope(parent, name, options)
  disposeScope = (scope: ScopeImpl): void => this.table.disposeScope(scope)
  whenChanged = (scope: ScopeImpl, wasVisible: boolean): void => this.table.whenChanged(scope, wasVisible)
  wentStale = (name: string, rev: number | undefined): boolean => this.table.wentStale(name, rev)
  subscribe: Toolmark['subscribe'] = (listener) => this.revisions.subscribe(listener)

  // Manifests and lookup: registry/manifest.ts; what a caller may see: policy/policy.ts.
  allows = (entry: Entry, caller: Caller): boolean => allows(this, entry, caller)
  manifest(options: { caller?: Caller; detail: 'full' }): Manifest<ToolManifest>
  manifest(options?: { caller?: Caller; detail?: 'summary' }): Manifest
  manifest(options?: { caller?: Caller; detail?: 'summary' | 'full' }): Manifest<ToolManifestSummary> {
    return this.manifests.manifest(options?.caller, options?.detail === 'full')
  }
  lookup = (name: string, caller: Caller | undefined): Entry | undefined =>
    this.manifests.lookup(name, caller)
  describe: Toolmark['describe'] = (name, options) => this.manifests.describe(name, options?.caller)
  info: Toolmark['info'] = (name) => this.manifests.info(name)

  // Tour hooks: registry/hooks.ts.
  state: Toolmark['state'] = (name) => stateOf(this, name)
  anchor: Toolmark['anchor'] = (name, param) => anchorOf(this, name, param)

  // Calls, confirmations, undo: call/call.ts and confirm/deferred.ts.
  call: Toolmark['call'] = (name, input, options) => {
    if (this.table.tools.size === 0 && !this.active()) this.sayInert()
    return this.pipeline.call(name, input, options)
  }
  confirmPending: Toolmark['confirmPending'] = (confirmId, outcome) =>
    this.pipeline.deferred.confirmPending(confirmId, outcome)
  pendingConfirmations: Toolmark['pendingConfirmations'] = () => this.pending.deferred()
  undo: Toolmark['undo'] = (callId) => this.pipeline.undo(callId)

  // Consumers, and what they get besides the registry: consumer.ts.
  use: Toolmark['use'] = (consumer) => (this.active() ? this.#consumers.use(consumer, this) : () => {})
  watch: ConsumerHost['watch'] = (options, listener: (m: never) => void) => watch(this, options, listener)
  observe: ConsumerHost['observe'] = (observer) => observe(this, observer)
  run: ConsumerHost['run'] = (name, input, options) => run(this, name, input, options)
  redact: ConsumerHost['redact'] = (tool, value) => redact(this, tool, value)
}
