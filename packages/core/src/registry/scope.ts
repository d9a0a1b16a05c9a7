import type { Entry } from '../tool/entry.ts'
import { CallQueue } from '../tool/queue.ts'
import type {
  AnySchema,
  ContextDefinition,
  ContextHandle,
  RegisterOptions,
  Scope,
  ScopeOptions,
  ToolDefinition,
  ToolHandle,
} from '../types.ts'

/** What a scope needs from its registry. */
export interface ScopeHost {
  register(tool: ToolDefinition, options: RegisterOptions | undefined): ToolHandle
  context(def: ContextDefinition, options: RegisterOptions | undefined): ContextHandle
  createScope(parent: ScopeImpl, name: string, options: ScopeOptions | undefined): Scope
  disposeScope(scope: ScopeImpl): void
  whenChanged(scope: ScopeImpl, wasVisible: boolean): void
}

/** A readable context entry as its scope holds it (the registry's context table owns the rest). */
export interface ScopedContext {
  readonly name: string
}

/** A named group of tools with one lifetime; nested scopes join names with `.`. */
export class ScopeImpl implements Scope {
  readonly name: string
  readonly path: string
  readonly parent: ScopeImpl | undefined
  readonly host: ScopeHost
  readonly queue: CallQueue
  readonly children = new Set<ScopeImpl>()
  readonly entries = new Set<Entry>()
  /** Its readable context entries. */
  readonly contexts = new Set<ScopedContext>()
  #when: boolean | (() => boolean)
  #disposed = false

  constructor(host: ScopeHost, parent: ScopeImpl | undefined, name: string, options?: ScopeOptions) {
    const transparent = options?.transparent === true
    this.host = host
    this.parent = parent
    this.name = transparent ? '' : name
    const base = parent?.path ?? ''
    this.path = transparent || name === '' ? base : base === '' ? name : `${base}.${name}`
    this.queue = transparent && parent ? parent.queue : new CallQueue()
    this.#when = options?.when ?? true
  }

  get disposed(): boolean {
    return this.#disposed
  }

  /** This scope's own `when`, evaluated now; a throwing `when` hides the scope. */
  ownVisible(): boolean {
    const w = this.#when
    if (typeof w === 'boolean') return w
    try {
      return w() === true
    } catch {
      return false
    }
  }

  /** Visible when it and every ancestor are. */
  visible(): boolean {
    for (let s: ScopeImpl | undefined = this; s; s = s.parent) if (!s.ownVisible()) return false
    return true
  }

  register<S extends AnySchema | undefined = undefined, O = unknown>(
    tool: ToolDefinition<S, O>,
    options?: Omit<RegisterOptions, 'scope'>,
  ): ToolHandle {
    return this.host.register(tool as unknown as ToolDefinition, { ...options, scope: this })
  }

  context(def: ContextDefinition, options?: Omit<RegisterOptions, 'scope'>): ContextHandle {
    return this.host.context(def, { ...options, scope: this })
  }

  scope(name: string, options?: ScopeOptions): Scope {
    return this.host.createScope(this, name, options)
  }

  setWhen(when: boolean | (() => boolean)): void {
    const was = this.visible()
    this.#when = when
    this.host.whenChanged(this, was)
  }

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    this.host.disposeScope(this)
  }

  /** Marks the scope disposed without telling the host (the host cascades). */
  markDisposed(): void {
    this.#disposed = true
  }
}
