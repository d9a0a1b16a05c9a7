'use client'
import type { Scope } from '@toolmark/core'
import { createScopeBinding, type ScopeIdentity } from '@toolmark/core/adapter'
import { useLayoutEffect, useMemo, useReducer } from 'react'
import { useCurrentScope, useToolmark } from './context.ts'

/** Options of `useScope` (and the props of `<ToolScope>` besides `name`). */
export interface UseScopeOptions {
  /**
   * While false the scope's tools are hidden. A changed boolean re-evaluates visibility at once
   * (`scope.setWhen`); a function is evaluated by the core on every revision and call, with the
   * latest render's closure.
   */
  when?: boolean | (() => boolean)
  /** A transparent scope adds no name segment and shares its parent's call queue. */
  transparent?: boolean
  /** The parent scope; defaults to the nearest `<ToolScope>` (the registry root without one). */
  parent?: Scope | null
  /**
   * A new value makes a new scope instance, like React's `key`: the old one is disposed with its tools
   * and pending confirmations (`@toolmark/next` passes the route's params and history entry).
   */
  key?: string
}

/**
 * Creates a scope named `name` for as long as the component is mounted (in a layout effect, disposed
 * in its cleanup with its tools and pending confirmations). Returns `null` until it exists (first
 * render, server); the re-render that hands it out happens in the same task as the mount, so the
 * tools below register in the task that mounted the component. A changed `name`, parent,
 * `transparent` or `key` disposes the scope and creates the next; until then it returns `null`. Pass it to `useTool(def, { scope })`, or use `<ToolScope>` to give it to descendants.
 * An invalid `name` (see tool names): a development registry throws `ToolmarkError` `invalid_name`
 * from the effect (the nearest error boundary catches it); a production one reports it as an error event and the scope's tools do not register.
 */
export function useScope(name: string, options: UseScopeOptions = {}): Scope | null {
  const tm = useToolmark()
  const provided = useCurrentScope()
  const parent = options.parent === undefined ? provided : options.parent
  const identity: ScopeIdentity = { name, parent, transparent: options.transparent, key: options.key ?? '' }
  const binding = useMemo(() => createScopeBinding(tm), [tm])
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  // Layout effects: React re-renders for a new scope in the same task as the commit that mounted the
  // component, so the tools below register in that task too, and a page swapped for another (the old
  // one's tools disposed in the same commit) publishes one manifest instead of one without the new
  // page's tools first.
  useLayoutEffect(() => binding.subscribe(rerender), [binding])
  // Every commit, before the mount below: the latest identity and `when`.
  useLayoutEffect(() => binding.update(identity, options.when))
  useLayoutEffect(() => binding.mount(), [binding])
  // A scope made for older props is about to be replaced: descendants wait instead of registering in it.
  return binding.for(identity)
}
