'use client'
import { type AnySchema, type Scope, type ToolDefinition, ToolmarkError } from '@toolmark/core'
import { ScopeContext, type UseToolOptions, useCurrentScope, useTool, useToolmark } from '@toolmark/react'
import { useParams, useRouter } from 'next/navigation'
import { createContext, type ReactNode, useContext, useEffect, useLayoutEffect, useState } from 'react'

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
  const tm = useToolmark()
  const parent = useCurrentScope()
  const key = useInstanceKey(options.params)
  const { transparent, when = true } = options
  const [made, setMade] = useState<Made | null>(null)

  // A layout effect, not a passive one: React re-renders for `setMade` in the same task as the commit
  // that mounted the segment, so the tools below register in that task too, together with the left
  // segment's disposal, and the registry publishes one manifest for the navigation. (From a passive
  // effect, the re-render could come a task later, after a manifest with the layout's tools alone.)
  useLayoutEffect(() => {
    if (parent === null) return
    const scope = (parent ?? tm).scope(name, transparent === undefined ? {} : { transparent })
    const entry: Made = { scope, tm, parent, name, transparent, key }
    setMade(entry)
    return () => {
      scope.dispose()
      setMade((current) => (current === entry ? null : current))
    }
  }, [tm, parent, name, transparent, key])

  // A scope made for other props (a new name, params or bfcacheId) is about to be disposed: React
  // runs every cleanup of a commit before any effect, so descendants must not register into it.
  const current =
    made &&
    made.tm === tm &&
    made.parent === parent &&
    made.name === name &&
    made.transparent === transparent &&
    made.key === key &&
    !made.scope.disposed
      ? made.scope
      : null

  useEffect(() => {
    if (current && !current.disposed) current.setWhen(when)
  }, [current, when])

  return current
}

/** A scope with the inputs it was made for. */
interface Made {
  scope: Scope
  tm: object
  parent: Scope | undefined
  name: string
  transparent: boolean | undefined
  key: string
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
  const scope = useRouteScope(name, options)
  const parentLabel = useContext(SegmentContext)
  const label = options.segment ?? (parentLabel && !options.transparent ? `${parentLabel}.${name}` : name)
  return (
    <SegmentContext.Provider
      value={options.transparent && !options.segment ? `${label} (transparent)` : label}
    >
      <ScopeContext.Provider value={scope}>{children}</ScopeContext.Provider>
    </SegmentContext.Provider>
  )
}

/** Which segment registered each full tool name, per registry. */
const owners = new WeakMap<object, Map<string, string>>()

/**
 * Claims `fullName` for `segment`. In development a name already claimed by another segment throws
 * a `duplicate_name` error naming both segments; otherwise the core reports the collision itself.
 */
function claim(tm: { dev: boolean }, fullName: string, segment: string): () => void {
  let names = owners.get(tm)
  if (!names) {
    names = new Map()
    owners.set(tm, names)
  }
  const owner = names.get(fullName)
  if (owner !== undefined && owner !== segment) {
    if (tm.dev) {
      throw new ToolmarkError(
        'duplicate_name',
        `Tool "${fullName}" is registered by route segment "${owner}" and again by route segment "${segment}". Rename one of them, or keep it in one segment.`,
      )
    }
    return () => {}
  }
  if (owner !== undefined) return () => {}
  names.set(fullName, segment)
  return () => {
    if (names.get(fullName) === segment) names.delete(fullName)
  }
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
    return claim(tm, fullName, label)
  }, [tm, scope, name, label])
  useTool(definition, options)
}
