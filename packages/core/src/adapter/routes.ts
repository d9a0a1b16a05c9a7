import type { ConsumerHost, ConsumerStatus, Toolmark } from '../types.ts'

/** The name route-aware adapters publish their status under (`host.statuses().routes`). */
export const ROUTES_STATUS = 'routes'

/**
 * What the devtools read to say which route owns a tool: `scopes` maps a scope path to the route
 * segment that owns it (`@toolmark/next`: `'app.settings'` → `'app/settings/page'`), and `page` names
 * the page on screen (`@toolmark/inertia`: its component, whose scopes add no name segment).
 */
export interface RoutesStatus extends ConsumerStatus {
  state: 'active'
  scopes: Record<string, string>
  page?: string
}

/** What one route publishes: a scope path and its owner's label, or the current page's name. */
export type RouteEntry = { scope: string; label: string } | { page: string }

interface Routes {
  entries: RouteEntry[]
  host: ConsumerHost | undefined
  detach: () => void
}

const published = new WeakMap<object, Routes>()

function flush(routes: Routes): void {
  if (!routes.host) return
  const status: RoutesStatus = { state: 'active', scopes: {} }
  for (const entry of routes.entries) {
    if ('page' in entry) status.page = entry.page
    else status.scopes[entry.scope] = entry.label
  }
  routes.host.status(ROUTES_STATUS, status)
}

/**
 * Publishes `entry` in the registry's `routes` status until the returned function is called (the
 * newest entry wins for a scope path or the page). Costs nothing in the call path: it is a status
 * consumers read, attached with `tm.use` while any route is published.
 */
export function publishRoute(tm: Pick<Toolmark, 'use'>, entry: RouteEntry): () => void {
  let routes = published.get(tm)
  if (!routes) {
    const made: Routes = { entries: [], host: undefined, detach: () => {} }
    published.set(tm, made)
    made.detach = tm.use((host) => {
      made.host = host
      flush(made)
      return () => {
        host.status(ROUTES_STATUS, undefined)
        made.host = undefined
      }
    })
    routes = made
  }
  const held = routes
  held.entries.push(entry)
  flush(held)
  return () => {
    const at = held.entries.indexOf(entry)
    if (at < 0) return
    held.entries.splice(at, 1)
    if (held.entries.length > 0) return flush(held)
    published.delete(tm)
    held.detach()
  }
}
