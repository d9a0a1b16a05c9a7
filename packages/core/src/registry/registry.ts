import { preloadCallChunk } from '../call/lazy.ts'
import type { ErrorEventCode } from '../codes.ts'
import { ToolmarkError } from '../errors.ts'
import { NON_HUMAN_CALLERS } from '../policy/policy.ts'
import { Entry } from '../tool/entry.ts'
import { isValidName } from '../tool/names.ts'
import type {
  Caller,
  ConfirmMode,
  ContextDefinition,
  ContextHandle,
  HintClass,
  RegisterOptions,
  Scope,
  ScopeOptions,
  ToolDefinition,
  ToolHandle,
  ToolmarkOptions,
} from '../types.ts'
import { type ContextSlot, ContextTable } from './context.ts'
import type { Revisions } from './revisions.ts'
import { type ScopeHost, ScopeImpl } from './scope.ts'

/** Development-only code tests `process.env.NODE_ENV` where it sits (the rule: report.ts). */
declare const process: { env: { NODE_ENV?: string } }

/** What the tool table needs from the registry that owns it. */
export interface RegistryHost {
  readonly dev: boolean
  readonly options: Pick<
    ToolmarkOptions,
    'confirm' | 'confirmUnannotated' | 'fromJsonSchema' | 'requiresConfirmation'
  >
  readonly policy: ReadonlyMap<Caller, ReadonlySet<HintClass>>
  readonly modes: Readonly<Record<Exclude<Caller, 'human'>, ConfirmMode>>
  readonly revisions: Revisions
  /** Expires the open confirmations of tools in `scopes`. */
  dropPending(scopes: ReadonlySet<ScopeImpl>): void
  /** False without a document (server rendering): registration is inert. */
  active(): boolean
  /** Throws in development, reports in production. */
  misconfigured(code: ErrorEventCode, message: string, tool?: string): void
  /** A development warning event. */
  warn(code: ErrorEventCode, message: string, tool?: string): void
  /** A tool's JSON Schema could not be derived. */
  conversionFailed(entry: Entry, err: unknown): void
}

const INERT_HANDLE_DISPOSE = (): void => {}

/**
 * The tool table: registration (names, collisions, the confirmation-path check), scopes, removal
 * (only through the handle, the registration signal or scope disposal), and which names went away
 * at which revision, so a call carrying an older revision is answered `stale`.
 */
export class ToolTable implements ScopeHost {
  // Fields the constructor assigns are `declare`d: no field declaration in the published code.
  readonly tools = new Map<string, Entry>()
  declare readonly root: ScopeImpl
  /** The readable context entries, declared in the same scopes. */
  declare readonly contexts: ContextTable
  readonly #host: RegistryHost
  readonly #llmNames = new Map<string, Entry>()
  /** Full name → the revision at which it stopped being available. */
  readonly #goneAt = new Map<string, number>()

  constructor(host: RegistryHost) {
    this.#host = host
    // The table owns its scopes: they call back here, never through the facade.
    this.root = new ScopeImpl(this, undefined, '')
    this.contexts = new ContextTable({
      active: () => host.active(),
      misconfigured: (code, message, name) => host.misconfigured(code, message, name),
      // Seen by the callers the policy gives some tools.
      sees: (caller) => caller === 'human' || (host.policy.get(caller)?.size ?? 0) > 0,
    })
  }

  context(def: ContextDefinition, options: RegisterOptions | undefined): ContextHandle {
    return this.contexts.declare(def, options, this.root)
  }

  register(tool: ToolDefinition, options: RegisterOptions | undefined): ToolHandle {
    const host = this.#host
    const localName = typeof tool?.name === 'string' ? tool.name : ''
    const inert = (name: string): ToolHandle => ({ name, dispose: INERT_HANDLE_DISPOSE })
    if (!host.active()) {
      const path = options?.scope instanceof ScopeImpl ? options.scope.path : ''
      return inert(path === '' ? localName : `${path}.${localName}`)
    }
    if (typeof tool?.run !== 'function') throw new TypeError('A tool needs a run(input, ctx) function')
    if (typeof tool.description !== 'string') throw new TypeError('A tool needs a description string')
    const scope = options?.scope ?? this.root
    if (!(scope instanceof ScopeImpl) || scope.host !== this) {
      host.misconfigured(
        'invalid_scope',
        `Tool "${localName}" was registered with a scope from another registry`,
      )
      return inert(localName)
    }
    if (scope.disposed) {
      host.misconfigured(
        'scope_disposed',
        `Tool "${localName}" was registered into disposed scope "${scope.path}"`,
      )
      return inert(localName)
    }
    const name = scope.path === '' ? localName : `${scope.path}.${localName}`
    if (!isValidName(localName) || !isValidName(name)) {
      host.misconfigured(
        'invalid_name',
        `Invalid tool name "${name}": use A-Z a-z 0-9 _ - . (at most 128, no empty segment)`,
      )
      return inert(name)
    }
    const entry = new Entry(name, tool, scope, {
      confirmUnannotated: host.options.confirmUnannotated === true,
      compile: host.options.fromJsonSchema,
      // An on-demand compile that fails is reported while the tool is still the one registered.
      onInvalidSchema: (err) => {
        if (this.tools.get(name) === entry) host.conversionFailed(entry, err)
      },
    })
    if (tool.grantable === true && entry.hintClass === 'destructive') {
      host.misconfigured('invalid_grant', `Destructive tool "${name}" cannot be grantable`, name)
      return inert(name)
    }
    const clash = this.tools.get(name) ?? this.#llmNames.get(entry.llmName)
    if (clash) {
      const what =
        clash.name === name ? `"${name}"` : `"${name}" (llmName "${entry.llmName}" of "${clash.name}")`
      host.misconfigured('duplicate_name', `A tool named ${what} is already registered`, name)
      return inert(name)
    }
    if (!this.#checkConfirmPath(entry)) return inert(name)
    // The call pipeline starts loading with the first tool (later ones find it loading or loaded).
    preloadCallChunk()
    if (!entry.canDeriveSchema) {
      host.misconfigured(
        'schema_conversion_failed',
        `No JSON Schema can be derived for "${name}": pass jsonSchema`,
        name,
      )
    } else if (process.env.NODE_ENV !== 'production' && host.dev) {
      entry.full((err) => {
        throw new ToolmarkError('schema_conversion_failed', `JSON Schema conversion failed for "${name}"`, {
          cause: err,
        })
      })
    }
    if (process.env.NODE_ENV !== 'production' && entry.hintClass === 'unannotated') {
      host.warn(
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
    host.revisions.bump()
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

  /**
   * Registration fails only when no allowed non-human caller has a confirmation path. Callers the
   * tool's `callers` leave out never see it, so they are not counted.
   */
  #checkConfirmPath(entry: Entry): boolean {
    if (!entry.confirms) return true
    const host = this.#host
    const hasHandler = host.options.confirm !== undefined
    let path = false
    const blind: Caller[] = []
    for (const caller of NON_HUMAN_CALLERS) {
      if (entry.callers?.has(caller) === false) continue
      if (!host.policy.get(caller)?.has(entry.hintClass)) continue
      if (host.modes[caller] === 'deferred' || hasHandler) path = true
      else blind.push(caller)
    }
    if (!path) {
      host.misconfigured(
        'missing_confirm_handler',
        `Tool "${entry.name}" needs confirmation but no allowed caller has a confirmation path: pass confirm or allow a deferred caller`,
        entry.name,
      )
      return false
    }
    if (process.env.NODE_ENV !== 'production' && blind.length > 0) {
      host.warn(
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
    const revisions = this.#host.revisions
    revisions.bump()
    this.#goneAt.set(entry.name, revisions.rev)
    if (this.#goneAt.size > 1000) this.#goneAt.delete(this.#goneAt.keys().next().value as string)
  }

  createScope(parent: ScopeImpl, name: string, options: ScopeOptions | undefined): Scope {
    const host = this.#host
    if (options?.transparent !== true && !isValidName(name)) {
      host.misconfigured('invalid_name', `Invalid scope name "${name}"`)
    }
    if (parent.disposed)
      host.misconfigured('scope_disposed', `Scope "${name}" was created in a disposed scope`)
    const scope = new ScopeImpl(this, parent, name, options)
    if (parent.disposed) scope.markDisposed()
    else parent.children.add(scope)
    if (options?.when !== undefined && options.when !== true && !parent.disposed) {
      host.revisions.track(scope, scope.visible())
    }
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
      this.#host.revisions.untrack(s)
      for (const entry of [...s.entries]) this.#remove(entry)
      for (const slot of [...s.contexts]) this.contexts.drop(slot as ContextSlot)
    }
    this.#host.dropPending(all)
  }

  whenChanged(scope: ScopeImpl, wasVisible: boolean): void {
    const revisions = this.#host.revisions
    revisions.track(scope, wasVisible)
    revisions.schedule()
  }

  /** Did `name` disappear after revision `rev`? */
  wentStale(name: string, rev: number | undefined): boolean {
    const current = this.#host.revisions.rev
    if (typeof rev !== 'number' || !(rev < current)) return false
    const gone = this.#goneAt.get(name)
    return gone !== undefined ? gone > rev : this.tools.has(name)
  }
}
