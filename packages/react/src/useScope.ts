'use client'
import type { Scope } from '@toolmark/core'
import { useEffect, useInsertionEffect, useLayoutEffect, useRef, useState } from 'react'
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
}

type WhenKey = boolean | 'function'

const whenKey = (when: UseScopeOptions['when']): WhenKey =>
  typeof when === 'function' ? 'function' : when !== false

/**
 * Creates a scope named `name` for as long as the component is mounted (in a layout effect, disposed
 * in its cleanup with its tools and pending confirmations). Returns `null` until it exists (first
 * render, server); the re-render that hands it out happens in the same task as the mount, so the
 * tools below register in the task that mounted the component. Pass it to `useTool(def, { scope })`, or use `<ToolScope>` to give it to descendants.
 * An invalid `name` (see tool names): a development registry throws `ToolmarkError` `invalid_name`
 * from the effect (the nearest error boundary catches it); a production one reports it as an error event and the scope's tools do not register.
 */
export function useScope(name: string, options: UseScopeOptions = {}): Scope | null {
  const tm = useToolmark()
  const provided = useCurrentScope()
  const parent = options.parent === undefined ? provided : options.parent
  const { when, transparent } = options
  const latestWhen = useRef(when)
  useInsertionEffect(() => {
    latestWhen.current = when
  })
  const [live] = useState(() => (): boolean => {
    const current = latestWhen.current
    return typeof current === 'function' ? current() : current !== false
  })
  const [scope, setScope] = useState<Scope | null>(null)
  const applied = useRef<{ scope: Scope; key: WhenKey } | null>(null)
  const key = whenKey(when)

  // A layout effect: React re-renders for `setScope` in the same task as this commit, so the tools
  // below register in that task too, and a page swapped for another (the old one's tools disposed in
  // the same commit) publishes one manifest instead of one without the new page's tools first.
  useLayoutEffect(() => {
    if (parent === null) return
    const created = (parent ?? tm).scope(
      name,
      transparent === undefined ? { when: live } : { when: live, transparent },
    )
    applied.current = { scope: created, key: whenKey(latestWhen.current) }
    setScope(created)
    return () => {
      created.dispose()
      setScope((current) => (current === created ? null : current))
    }
  }, [tm, parent, name, transparent, live])

  useEffect(() => {
    if (!scope || (applied.current?.scope === scope && applied.current.key === key)) return
    applied.current = { scope, key }
    scope.setWhen(live)
  }, [scope, key, live])

  return scope
}
