import type { Scope, Toolmark } from '@toolmark/core'
import { getContext, hasContext, setContext } from 'svelte'

const TOOLMARK = Symbol('toolmark')
const SCOPE = Symbol('toolmark.scope')

/** A reactive view of the current scope: `current` is `null` while it does not exist yet. */
export interface ScopeView {
  readonly current: Scope | null
}

/** The message thrown by `useToolmark()` when no instance was set in context. */
export const NO_TOOLMARK =
  'No Toolmark found: wrap your components in <ToolmarkProvider toolmark={tm}> or call setToolmarkContext(tm) in a parent component.'

/** Sets `tm` in context for this component's descendants (`<ToolmarkProvider>` does it for you). */
export function setToolmarkContext(tm: Toolmark): Toolmark {
  return setContext(TOOLMARK, tm)
}

/** The Toolmark instance from context; throws a clear error without one. Call during component init. */
export function useToolmark(): Toolmark {
  const tm = hasContext(TOOLMARK) ? getContext<Toolmark | undefined>(TOOLMARK) : undefined
  if (!tm) throw new Error(NO_TOOLMARK)
  return tm
}

/**
 * Sets the scope this component's descendants' `useTool` and `useScope` register in (for integrations
 * that own their scopes, such as `@toolmark/inertia/svelte`). Call during component initialisation.
 */
export function setScopeContext(scope: ScopeView): void {
  setContext(SCOPE, scope)
}

/** A reactive view of the scope above a component: `current` is `undefined` at the registry root. */
export interface CurrentScope {
  /** The scope (`undefined` at the root, `null` while the provided scope does not exist yet). */
  readonly current: Scope | null | undefined
}

/**
 * The scope set above this component (by an ancestor's `useScope`, or an integration through
 * `setScopeContext`), read through `current`, which follows it: `undefined` at the registry root,
 * `null` while the provided scope does not exist yet (before the ancestor mounts, and on the server).
 * Call during component initialisation.
 */
export function useCurrentScope(): CurrentScope {
  const provided = getScopeContext()
  return {
    get current() {
      return provided ? provided.current : undefined
    },
  }
}

/** @internal The scope set by an ancestor's `useScope` (`undefined` at the registry root). */
export function getScopeContext(): ScopeView | undefined {
  return hasContext(SCOPE) ? getContext<ScopeView>(SCOPE) : undefined
}
