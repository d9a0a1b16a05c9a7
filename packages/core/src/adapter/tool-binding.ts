import { llmName } from '../tool/names.ts'
import type { AnySchema, Scope, ToolDefinition, Toolmark } from '../types.ts'
import { liveDefinition, structuralParts } from './live-definition.ts'

type AnyDefinition = ToolDefinition<AnySchema | undefined, unknown>

/** Where a binding registers: a scope, `undefined` for the registry root, `null` to wait for one. */
export type BindingScope = Scope | null | undefined

/** One tool declared by a component: the framework hands it each new definition and maps its lifetime. */
export interface ToolBinding {
  /**
   * Hands over the latest definition and scope (each render, or each reactive change). Its closures
   * are used from now on; while mounted, the tool is registered again only when `structuralKey`
   * or the scope changes. Never throws before `mount()`; afterwards it throws what `mount()` throws.
   */
  update(definition: ToolDefinition<AnySchema | undefined, unknown>, scope: BindingScope): void
  /**
   * Registers the latest definition (nothing while the scope is `null`) and returns the cleanup that
   * disposes it, dropping its pending confirmations. When the name is taken, a development registry
   * throws `ToolmarkError` `duplicate_name`; a production one reports it as an error event and the
   * binding registers as soon as the name frees, while still mounted.
   */
  mount(): () => void
  /** `structuralKey` of the latest definition (`''` before the first `update`). */
  readonly key: string
}

/**
 * The one rule for "is this a new tool?": equal keys mean the manifest would not change, so the
 * registration (its `rev` and its pending confirmations) is kept. Every field of the definition has
 * its rule in `DEFINITION_FIELDS`: the name, description, title and `mode` by value, hints by flag,
 * the schemas by structure (`schemaKey`), which optional callbacks exist, and `sensitivePaths`.
 */
export function structuralKey(definition: ToolDefinition<AnySchema | undefined, unknown>): string {
  return JSON.stringify(structuralParts(definition))
}

/**
 * A tool binding for `tm`: what React's `useTool`, Vue's and Svelte's share. Call `update` with every
 * new definition and `mount` when the component mounts; both are cheap when nothing structural
 * changed. Nothing happens on the server: the frameworks never mount there.
 */
export function createToolBinding(tm: Toolmark): ToolBinding {
  let latest: AnyDefinition | undefined
  let scope: BindingScope
  let key = ''
  let mounted = false
  let generation = 0
  let applied: { key: string; scope: BindingScope } | undefined
  let release: (() => void) | undefined

  const detach = (): void => {
    const done = release
    release = undefined
    applied = undefined
    done?.()
  }

  const attach = (): void => {
    applied = { key, scope }
    if (!latest || scope === null) return
    const def = latest
    // A transparent scope of its own (no name segment, the parent's call queue): disposing it removes
    // the tool and drops its pending confirmations, so an unmounted component takes its cards along.
    const own = (scope ?? tm).scope('', { transparent: true })
    const live = liveDefinition(def, () => latest ?? def)
    const name = own.path === '' ? def.name : `${own.path}.${def.name}`
    let waiting: (() => void) | undefined
    // True when the registry refused the name because another tool holds it (production reports it).
    const register = (): boolean => {
      let taken = false
      const off = tm.events.on('error', (e) => {
        if (e.code === 'duplicate_name' && e.tool === name) taken = true
      })
      try {
        own.register(live)
      } finally {
        off()
      }
      return taken
    }
    const free = (): boolean =>
      tm.info(name) === undefined && !tm.manifest().tools.some((t) => t.llmName === llmName(name))
    const wait = (): void => {
      waiting = tm.subscribe(() => {
        if (own.disposed) return waiting?.()
        if (!free()) return
        waiting?.()
        waiting = undefined
        if (register()) wait()
      })
    }
    try {
      if (register()) wait()
    } catch (err) {
      own.dispose()
      throw err
    }
    release = () => {
      waiting?.()
      own.dispose()
    }
  }

  return {
    update(definition, where) {
      latest = definition
      key = structuralKey(definition)
      scope = where
      if (mounted && (applied?.key !== key || applied.scope !== where)) {
        detach()
        attach()
      }
    },
    mount() {
      detach()
      const mine = ++generation
      mounted = true
      try {
        attach()
      } catch (err) {
        // The framework gets no cleanup from a mount that threw: stay unmounted so nothing can leak.
        mounted = false
        throw err
      }
      return () => {
        if (mine !== generation || !mounted) return
        mounted = false
        detach()
      }
    },
    get key() {
      return key
    },
  }
}
