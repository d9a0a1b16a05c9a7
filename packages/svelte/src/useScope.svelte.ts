import type { Scope } from '@toolmark/core'
import { createScopeBinding } from '@toolmark/core/adapter'
import { untrack } from 'svelte'
import { getScopeContext, type ScopeView, setScopeContext, useToolmark } from './context.js'

/** Options of `useScope`. */
export interface UseScopeOptions {
  /** While false the scope's tools are hidden; a getter reading state is tracked and applied at once. */
  when?: boolean | (() => boolean)
  /** A transparent scope adds no name segment and shares its parent's call queue. */
  transparent?: boolean
}

/**
 * A scope named `name` (or a getter of it) for this component: created in an `$effect` on mount,
 * disposed in its teardown with its tools and pending confirmations, and set in context so
 * descendants' `useTool` register in it. `current` is `null` until it exists (and on the server).
 * Call during component initialisation.
 * An invalid `name` (see tool names): a development registry throws `ToolmarkError` `invalid_name`
 * from the `$effect` (the nearest `<svelte:boundary>` catches it); a production one reports it as an error event and the scope's tools do not register.
 */
export function useScope(name: string | (() => string), options: UseScopeOptions = {}): ScopeView {
  const tm = useToolmark()
  const parent = getScopeContext()
  let scope = $state.raw<Scope | null>(null)
  const view: ScopeView = {
    get current() {
      return scope
    },
  }
  setScopeContext(view)
  const segment = $derived(typeof name === 'function' ? name() : name)
  const under = $derived(parent ? parent.current : undefined)
  const visible = $derived(typeof options.when === 'function' ? options.when() : options.when !== false)
  const binding = createScopeBinding(tm)

  // Declared first, so it runs before the mount below: the latest name, parent and visibility.
  $effect(() => {
    binding.update({ name: segment, parent: under, transparent: options.transparent }, visible)
  })
  $effect(() => {
    const off = binding.subscribe(() => {
      scope = binding.current
    })
    const unmount = untrack(() => binding.mount())
    return () => {
      unmount()
      off()
    }
  })

  return view
}
