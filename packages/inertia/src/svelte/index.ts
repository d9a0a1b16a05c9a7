import { usePage } from '@inertiajs/svelte'
import type { Scope } from '@toolmark/core'
import { type ScopeView, setScopeContext } from '@toolmark/svelte'
import { getContext, hasContext, setContext } from 'svelte'
import { createSubscriber } from 'svelte/reactivity'
import type { InertiaBinding } from '../binding.ts'
import type { InertiaPageLike } from '../types.ts'

export type { ScopeView } from '@toolmark/svelte'
export type { InertiaBinding } from '../binding.ts'

const BINDING = Symbol('toolmark.inertia')

/** The message thrown by `useInertiaBinding()` when no binding was set in context. */
export const NO_BINDING =
  'No Inertia binding found: call setInertiaToolmark(binding) in a component above your pages.'

/**
 * Sets the binding in context and makes this component's descendants (persistent layouts, the chat)
 * register their tools in the layout scope, which lives as long as the app. Call during the
 * initialisation of a component above Inertia's `<App>`, after `setToolmarkContext(tm)` (or inside
 * `<ToolmarkProvider>`); each page component calls {@link usePageScopeProvider} for its page scope.
 */
export function setInertiaToolmark(binding: InertiaBinding): InertiaBinding {
  setContext(BINDING, binding)
  setScopeContext({
    get current() {
      return binding.layout
    },
  })
  return binding
}

/** The binding set by {@link setInertiaToolmark}; throws a clear error without one. Call during component init. */
export function useInertiaBinding(): InertiaBinding {
  const binding = hasContext(BINDING) ? getContext<InertiaBinding | undefined>(BINDING) : undefined
  if (!binding) throw new Error(NO_BINDING)
  return binding
}

/**
 * The scope of the page being rendered (from `@inertiajs/svelte`'s `usePage()`), as a reactive view
 * that follows the binding: the current page scope, or the one the next page gets while it mounts.
 * `current` is `null` on the server. Call during component initialisation.
 */
export function usePageScope(): ScopeView {
  const binding = useInertiaBinding()
  const page = usePage() as unknown as InertiaPageLike
  // Subscribed while an effect reads `current`; the subscription ends with the last such effect.
  const track = createSubscriber((update) => binding.subscribe(update))
  return {
    get current(): Scope | null {
      track()
      return binding.scopeFor({ component: page.component, url: page.url, props: page.props })
    },
  }
}

/**
 * Makes this component's descendants (and its own `useTool`s declared after it) register in the
 * current page's scope. Call it first thing in each Inertia page component.
 */
export function usePageScopeProvider(): ScopeView {
  const scope = usePageScope()
  setScopeContext(scope)
  return scope
}
