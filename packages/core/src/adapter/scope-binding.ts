import type { Scope, Toolmark } from '../types.ts'
import type { BindingScope } from './tool-binding.ts'

/** What makes a scope instance: a change of any of these disposes the scope and creates the next one. */
export interface ScopeIdentity {
  /** The scope's name segment. */
  name: string
  /** Where to create it: a scope, `undefined` (or absent) for the registry root, `null` to wait for one. */
  parent?: BindingScope
  /** A transparent scope adds no name segment and shares its parent's call queue. */
  transparent?: boolean | undefined
  /**
   * Anything else that makes a new instance (`@toolmark/next`: the route's params and history entry).
   * Default `''`.
   */
  key?: string
}

/** One scope declared by a component: the framework hands it each new identity and maps its lifetime. */
export interface ScopeBinding {
  /**
   * Hands over the latest identity and `when` (each render, or each reactive change). While mounted,
   * a changed identity disposes the scope (its tools and pending confirmations go) and creates the
   * next one at once; a changed `when` (another boolean, or a function instead of a boolean) is
   * applied at once. A function `when` is called with its latest closure on every revision and call.
   * Before `mount()` it only records; afterwards it throws what creating the scope throws.
   */
  update(identity: ScopeIdentity, when?: boolean | (() => boolean)): void
  /**
   * Creates the scope for the latest identity (nothing while its parent is `null`) and returns the
   * cleanup that disposes it. A development registry throws `ToolmarkError` `invalid_name` for a bad
   * name; a production one reports it as an error event.
   */
  mount(): () => void
  /** The scope, or `null`: not mounted, waiting for its parent, or disposed. */
  readonly current: Scope | null
  /**
   * The scope, only if it was made for `identity`; else `null`. A render reads this: a scope made for
   * older props is about to be replaced, and descendants must not register into it.
   */
  for(identity: ScopeIdentity): Scope | null
  /** Calls `listener` whenever `current` changes; returns the unsubscribe. */
  subscribe(listener: () => void): () => void
}

type WhenKey = boolean | 'function'

const whenKey = (when: boolean | (() => boolean) | undefined): WhenKey =>
  typeof when === 'function' ? 'function' : when !== false

const sameIdentity = (a: ScopeIdentity, b: ScopeIdentity): boolean =>
  a.name === b.name &&
  a.parent === b.parent &&
  a.transparent === b.transparent &&
  (a.key ?? '') === (b.key ?? '')

/**
 * A scope binding for `tm`: what React's `useScope`, Vue's, Svelte's and `@toolmark/next`'s
 * `useRouteScope` share. Call `update` with every new identity and `mount` when the component
 * mounts; nothing happens on the server, where the frameworks never mount.
 */
export function createScopeBinding(tm: Pick<Toolmark, 'scope'>): ScopeBinding {
  let identity: ScopeIdentity = { name: '' }
  let when: boolean | (() => boolean) | undefined
  let made: { scope: Scope; identity: ScopeIdentity; when: WhenKey } | undefined
  let mounted = false
  const listeners = new Set<() => void>()
  // The one visibility function every scope of this binding gets: it reads the latest `when`.
  const live = (): boolean => (typeof when === 'function' ? when() : when !== false)

  const notify = (): void => {
    for (const listener of [...listeners]) listener()
  }
  const release = (): void => {
    const old = made
    made = undefined
    old?.scope.dispose()
  }
  const create = (): void => {
    const { name, parent, transparent } = identity
    if (parent === null) return
    const scope = (parent ?? tm).scope(
      name,
      transparent === undefined ? { when: live } : { when: live, transparent },
    )
    made = { scope, identity, when: whenKey(when) }
  }

  return {
    update(next, nextWhen) {
      when = nextWhen
      const changed = !sameIdentity(identity, next)
      identity = { ...next }
      if (!mounted) return
      if (changed || !made) {
        const had = made !== undefined
        release()
        create()
        if (had || made) notify()
        return
      }
      const key = whenKey(when)
      if (made.when !== key) {
        made.when = key
        made.scope.setWhen(live)
      }
    },
    mount() {
      mounted = true
      create()
      if (made) notify()
      return () => {
        mounted = false
        const had = made !== undefined
        release()
        if (had) notify()
      }
    },
    get current() {
      return made && !made.scope.disposed ? made.scope : null
    },
    for(wanted) {
      return made && !made.scope.disposed && sameIdentity(made.identity, wanted) ? made.scope : null
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
