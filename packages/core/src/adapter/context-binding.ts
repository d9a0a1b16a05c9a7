import type { ContextDefinition, ContextHandle, Toolmark } from '../types.ts'
import type { BindingScope } from './tool-binding.ts'

/** One readable context entry declared by a component: the framework hands it each new definition. */
export interface ContextBinding {
  /**
   * Hands over the latest definition and scope. While mounted, a new value is `set` (the registry
   * ignores an equal one); the entry is declared again only when its name, title, description,
   * `sensitivePaths` list or the scope change.
   */
  update(definition: ContextDefinition, scope: BindingScope): void
  /** Declares the latest definition (nothing while the scope is `null`); returns the cleanup that disposes it. */
  mount(): () => void
}

/**
 * What the entry is, apart from its value: a change re-declares it. A `sensitivePaths` function counts
 * as one (it is read again at each `set`).
 */
export function contextKey(definition: ContextDefinition): string {
  const { name, title, description, sensitivePaths: paths } = definition
  return JSON.stringify([name, title, description, typeof paths === 'function' ? 'fn' : paths])
}

/**
 * A context binding for `tm`: what React's `useToolmarkContext`, Vue's and Svelte's share. Nothing
 * happens on the server: the frameworks never mount there.
 */
export function createContextBinding(tm: Toolmark): ContextBinding {
  let latest: ContextDefinition | undefined
  let scope: BindingScope
  let mounted = false
  let applied: { key: string; scope: BindingScope } | undefined
  let handle: ContextHandle | undefined

  const detach = (): void => {
    const done = handle
    handle = undefined
    applied = undefined
    done?.dispose()
  }
  const attach = (): void => {
    if (!latest) return
    applied = { key: contextKey(latest), scope }
    if (scope !== null) handle = (scope ?? tm).context(latest)
  }
  return {
    update(definition, where) {
      latest = definition
      scope = where
      if (!mounted) return
      if (applied?.key !== contextKey(definition) || applied.scope !== where) {
        detach()
        attach()
      } else handle?.set(definition.value)
    },
    mount() {
      mounted = true
      attach()
      return () => {
        mounted = false
        detach()
      }
    },
  }
}
