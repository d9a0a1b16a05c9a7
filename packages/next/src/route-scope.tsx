'use client'
import type { AnySchema, Scope, ToolDefinition } from '@toolmark/core'
import { claimToolName, type NameOwnerKind, publishRoute } from '@toolmark/core/adapter'
import {
  ScopeContext,
  type UseToolOptions,
  useCurrentScope,
  useScope,
  useTool,
  useToolmark,
} from '@toolmark/react'
import { useParams, useRouter } from 'next/navigation'
import { createContext, type ReactNode, useContext, useEffect } from 'react'

export interface RouteScopeOptions {
  /**
   * Names of the route params this scope belongs to; the scope is made anew when one of their values
   * changes. Default: every param of the URL (`useParams()`). A layout above a dynamic segment whose
   * tools do not depend on the child's params should pass `[]`.
   */
  params?: readonly string[]
  /** A transparent scope adds no name segment (its tools share the parent's prefix and queue). */
  transparent?: boolean
  /** While false the scope's tools are hidden (re-evaluated when it changes). */
  when?: boolean
  /** How development errors name this segment, e.g. `'app/challenges/layout'`. Default: its scope path. */
  segment?: string
}

/** How a collision between two route segments reads: "registered by route segment "app/layout"". */
const SEGMENT_OWNER: NameOwnerKind = { kind: 'route segment', where: 'segment' }

/** The label of the nearest route scope, for collision messages. */
const SegmentContext = createContext<string | undefined>(undefined)

/**
 * A key for the segment instance the component renders in: the values of `params` plus the
 * router's `bfcacheId`, which changes on a fresh push or replace and stays for back/forward,
 * `refresh()` and search-param or hash changes.
 */
function useInstanceKey(params: readonly string[] | undefined): string {
  const all = useParams() ?? {}
  const { bfcacheId } = useRouter() as { bfcacheId?: string }
  const names = params ?? Object.keys(all).sort()
  return JSON.stringify([bfcacheId ?? '', names.map((name) => [name, all[name] ?? null])])
}

/**
 * A scope owned by the layout or page that calls it: created in a layout effect when the segment
 * mounts (or is shown again by Cache Components' `<Activity>`), disposed when navigation leaves or
 * hides it, with its tools and pending confirmations. The tools below it register in the same task
 * as the commit that mounted the segment, so a navigation publishes one manifest (the left segment's
 * tools gone, the new one's there), unless the segment suspends. Nested route scopes nest names (`dashboard.settings.save`).
 * A fresh push, or a change of its params, makes a new scope instance. Returns `null` until it exists
 * (first render, server); give it to descendants with {@link RouteScope}.
 */
export function useRouteScope(name: string, options: RouteScopeOptions = {}): Scope | null {
  const key = useInstanceKey(options.params)
  const { transparent, when = true } = options
  return useScope(name, transparent === undefined ? { when, key } : { transparent, when, key })
}

export interface RouteScopeProps extends RouteScopeOptions {
  /** The scope's name segment (its tools are named `<name>.<tool>`). */
  name: string
  children?: ReactNode
}

/**
 * {@link useRouteScope} for a subtree: every `useTool`/`useRouteTool` below registers in it (and
 * waits for it instead of landing at the root).
 */
export function RouteScope({ name, children, ...options }: RouteScopeProps): ReactNode {
  const tm = useToolmark()
  const scope = useRouteScope(name, options)
  const parentLabel = useContext(SegmentContext)
  const label = options.segment ?? (parentLabel && !options.transparent ? `${parentLabel}.${name}` : name)
  // Which segment owns the scope, for the devtools' registry (a status, nothing in the call path).
  useEffect(() => (scope ? publishRoute(tm, { scope: scope.path, label }) : undefined), [tm, scope, label])
  return (
    <SegmentContext.Provider
      value={options.transparent && !options.segment ? `${label} (transparent)` : label}
    >
      <ScopeContext.Provider value={scope}>{children}</ScopeContext.Provider>
    </SegmentContext.Provider>
  )
}

/**
 * `useTool` for layouts and pages: registers `definition` in the nearest route scope while the
 * segment is shown (same rules as `useTool` from `@toolmark/react`), and in development reports a
 * tool name that another route segment already registered, naming both segments.
 */
export function useRouteTool<S extends AnySchema | undefined = undefined, O = unknown>(
  definition: ToolDefinition<S, O>,
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = useCurrentScope()
  const scope = options.scope === undefined ? provided : options.scope
  const providedLabel = useContext(SegmentContext)
  const label = options.scope ? options.scope.path || '(root)' : (providedLabel ?? '(root)')
  const { name } = definition
  useEffect(() => {
    if (scope === null) return
    const fullName = scope?.path ? `${scope.path}.${name}` : name
    return claimToolName(tm, fullName, label, SEGMENT_OWNER)
  }, [tm, scope, name, label])
  useTool(definition, options)
}
