import type { Scope } from '@toolmark/core'
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
  const live = (): boolean => {
    const when = options.when
    return typeof when === 'function' ? when() : when !== false
  }
  const segment = $derived(typeof name === 'function' ? name() : name)
  const under = $derived(parent ? parent.current : undefined)
  const visible = $derived(live())
  let applied: { scope: Scope; visible: boolean } | undefined

  $effect(() => {
    const base = under
    const label = segment
    if (base === null) return
    const created = untrack(() => {
      const { transparent } = options
      return (base ?? tm).scope(
        label,
        transparent === undefined ? { when: live } : { when: live, transparent },
      )
    })
    applied = { scope: created, visible: untrack(() => visible) }
    scope = created
    return () => {
      created.dispose()
      if (untrack(() => scope) === created) scope = null
    }
  })

  $effect(() => {
    const now = visible
    const target = untrack(() => scope)
    if (!target || (applied?.scope === target && applied.visible === now)) return
    applied = { scope: target, visible: now }
    target.setWhen(live)
  })

  return view
}
