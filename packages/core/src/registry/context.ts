import type { ErrorEventCode } from '../codes.ts'
import { isPlainObject } from '../schema/paths.ts'
import { isValidName } from '../tool/names.ts'
import { redactedValue, type SensitivePathsSource } from '../tool/redact.ts'
import type {
  Caller,
  ContextDefinition,
  ContextEntry,
  ContextHandle,
  ContextSnapshot,
  RegisterOptions,
} from '../types.ts'
import { ScopeImpl } from './scope.ts'

/** Most characters of JSON a context value may take once masked; a larger value becomes `null`. */
export const MAX_CONTEXT_CHARS = 16_384

/** Deepest nesting a context value may have (the value itself is depth 1). */
const MAX_DEPTH = 32

/** What the context table needs from the registry. */
export interface ContextHost {
  /** False without a document (server rendering): declaration is inert. */
  active(): boolean
  misconfigured(code: ErrorEventCode, message: string, tool?: string): void
  /** Whether `caller` may see the page's context (the policy gives it some tools). */
  sees(caller: Caller): boolean
}

/** One declared entry: its definition, scope and current masked value. */
export class ContextSlot {
  declare readonly name: string
  declare readonly def: ContextDefinition
  declare readonly scope: ScopeImpl
  /** The masked value as JSON text: what equality is checked on. */
  json = ''
  entry: ContextEntry | undefined
  disposed = false
  constructor(name: string, def: ContextDefinition, scope: ScopeImpl) {
    this.name = name
    this.def = def
    this.scope = scope
  }
}

/** True for JSON data only (no cycles, at most `MAX_DEPTH` deep). */
function isJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (depth > MAX_DEPTH) return false
  if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1))
  return isPlainObject(value) && Object.values(value).every((v) => v !== undefined && isJson(v, depth + 1))
}

const NOOP = (): void => {}
/** The handle of a declaration that did nothing (server rendering, a reported misconfiguration). */
const inert = (name: string): ContextHandle => ({ name, set: NOOP, dispose: NOOP })

/**
 * The readable context entries: declaration (names and scopes as for tools), masked JSON values,
 * their revisions, and one notification per microtask for any burst of changes. Entries of a
 * disposed scope go with it (the tool table calls `drop`).
 */
export class ContextTable {
  readonly slots = new Map<string, ContextSlot>()
  readonly #host: ContextHost
  readonly #listeners = new Set<() => void>()
  #rev = 0
  #scheduled = false

  constructor(host: ContextHost) {
    this.#host = host
  }

  /** The context revision: bumped by every added, removed or changed entry. */
  get rev(): number {
    return this.#rev
  }

  /** `tm.context` / `scope.context`: checks, declares and returns the entry's handle. */
  declare(def: ContextDefinition, options: RegisterOptions | undefined, root: ScopeImpl): ContextHandle {
    const host = this.#host
    const local = typeof def?.name === 'string' ? def.name : ''
    if (!host.active()) return inert(local)
    if (typeof def?.description !== 'string')
      throw new TypeError('A context entry needs a description string')
    const scope = options?.scope ?? root
    if (!(scope instanceof ScopeImpl) || scope.host !== root.host || scope.disposed) {
      host.misconfigured(
        scope.disposed === true ? 'scope_disposed' : 'invalid_scope',
        `Context "${local}" was declared in a disposed scope or a scope of another registry`,
      )
      return inert(local)
    }
    const name = scope.path === '' ? local : `${scope.path}.${local}`
    if (!isValidName(local) || !isValidName(name)) {
      host.misconfigured('invalid_name', `Invalid context name "${name}"`)
      return inert(name)
    }
    if (this.slots.has(name)) {
      host.misconfigured('duplicate_name', `A context entry named "${name}" is already declared`, name)
      return inert(name)
    }
    const slot = new ContextSlot(name, def, scope)
    // A bad first value throws in development before anything is declared.
    const first = this.#read(slot, def.value)
    if (options?.signal?.aborted) return inert(name)
    this.slots.set(name, slot)
    scope.contexts.add(slot)
    this.#store(slot, first)
    const onAbort = (): void => this.drop(slot)
    options?.signal?.addEventListener('abort', onAbort, { once: true })
    return {
      name,
      set: (value) => {
        if (!slot.disposed) this.#store(slot, this.#read(slot, value))
      },
      dispose: () => {
        options?.signal?.removeEventListener('abort', onAbort)
        this.drop(slot)
      },
    }
  }

  /** Removes an entry (its handle, its signal or its scope ended it). */
  drop(slot: ContextSlot): void {
    if (slot.disposed) return
    slot.disposed = true
    this.slots.delete(slot.name)
    slot.scope.contexts.delete(slot)
    this.#changed()
  }

  /** The entries `caller` may see (all visible ones without a caller), sorted by name. */
  snapshot(caller: Caller | undefined): ContextSnapshot {
    const entries: ContextEntry[] = []
    if (caller === undefined || this.#host.sees(caller))
      for (const slot of this.slots.values()) if (slot.entry && slot.scope.visible()) entries.push(slot.entry)
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return { rev: this.#rev, entries }
  }

  /** Called once per microtask after entries were added, removed or changed. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  /** The masked JSON text of `value`, or `'null'` (reported) when it is not JSON or too large. */
  #read(slot: ContextSlot, value: unknown): string {
    let problem = 'is not JSON data'
    if (isJson(value, 1)) {
      const json = JSON.stringify(redactedValue(value, slot.def.sensitivePaths as SensitivePathsSource))
      if (json.length <= MAX_CONTEXT_CHARS) return json
      problem = `is larger than ${MAX_CONTEXT_CHARS} characters of JSON`
    }
    // A declared entry shows null at once (also when development throws below): never a stale value.
    if (this.slots.get(slot.name) === slot) this.#store(slot, 'null')
    this.#host.misconfigured(
      'invalid_context',
      `The value of context "${slot.name}" ${problem}: it is null`,
      slot.name,
    )
    return 'null'
  }

  #store(slot: ContextSlot, json: string): void {
    if (json === slot.json) return
    slot.json = json
    const { title } = slot.def
    const entry: ContextEntry = {
      name: slot.name,
      description: slot.def.description,
      value: JSON.parse(json),
      rev: this.#rev + 1,
    }
    if (typeof title === 'string') entry.title = title
    slot.entry = entry
    this.#changed()
  }

  #changed(): void {
    this.#rev++
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => {
      this.#scheduled = false
      for (const listener of [...this.#listeners]) {
        try {
          listener()
        } catch (err) {
          console.error('[toolmark] a subscriber threw', err)
        }
      }
    })
  }
}
