import type { Scope, Toolmark } from '@toolmark/core'
import { environment, publishRoute } from '@toolmark/core/adapter'
import { type ConnectEchoOptions, connectEcho } from './echo.ts'
import { type NavigationToolOptions, navigationTool } from './navigation.ts'
import { initialPageFromDocument, isPage } from './page.ts'
import type { InertiaPageEventDetail, InertiaPageLike, InertiaRouterLike } from './types.ts'

/** Options of {@link bindInertia}. */
export interface BindInertiaOptions {
  /** Inertia's `router` (from `@inertiajs/react`, `/vue3`, `/svelte` or `/core`). */
  router: InertiaRouterLike
  /**
   * The page the app started on. Default: read from `<script data-page="app" type="application/json">`
   * (what Inertia 3 renders), else the first page event.
   */
  initialPage?: InertiaPageLike
  /**
   * The page-scope key: a new key gets a new page scope, the same key keeps it. Default
   * `page.component`, so partial reloads, `preserveState` visits and prop updates on the same
   * component keep their scope, and a visit to another component (even to the same URL) swaps it.
   */
  key?: (page: InertiaPageLike) => string
  /**
   * The navigation tool in the layout scope (see `navigationTool`). Default `true`; `false` leaves
   * it out, an object configures it.
   */
  navigation?: boolean | NavigationToolOptions
  /** Attach the bridge over Laravel Echo from the page's shared props (see `connectEcho`). */
  echo?: Omit<ConnectEchoOptions, 'router' | 'initialPage'>
}

/** What {@link bindInertia} returns. */
export interface InertiaBinding {
  /** The registry it binds. */
  readonly toolmark: Toolmark
  /** The scope that outlives page scopes (persistent layouts, the navigation tool); `null` on the server. */
  readonly layout: Scope | null
  /** The current page's scope; `null` on the server and before the first page is known. */
  readonly page: Scope | null
  /** The current page's key; `undefined` before the first page is known. */
  readonly key: string | undefined
  /** The key `page` maps to (the `key` option). */
  keyOf(page: InertiaPageLike): string
  /**
   * The scope for `page`: the current page scope when the key matches, else the scope the next
   * page will get (created once per key, so a framework adapter can render the new page's tools
   * straight into it before the router event makes it current). `null` on the server.
   */
  scopeFor(page: InertiaPageLike): Scope | null
  /** Called after the current page scope changed. Returns the unsubscribe. */
  subscribe(listener: () => void): () => void
  /** Unsubscribes from the router, detaches the bridge and disposes the page and layout scopes. Idempotent. */
  dispose(): void
}

const INERT: InertiaBinding = Object.freeze({
  toolmark: undefined as unknown as Toolmark,
  layout: null,
  page: null,
  key: undefined,
  keyOf: (page: InertiaPageLike) => page.component,
  scopeFor: () => null,
  subscribe: () => () => {},
  dispose: () => {},
})

/**
 * Binds a Toolmark registry to Inertia's router: one page scope per Inertia page (keyed by
 * `page.component` unless `key` says otherwise) and one layout scope that outlives them.
 *
 * The page scope switches on the router's `navigate`, `success` and `clientVisit` events by
 * comparing keys (Inertia fires no `navigate` for same-URL visits, `replace: true` visits, partial
 * reloads or client-side visits, so `navigate` alone would miss component changes); `beforeUpdate`
 * prepares the next scope so the new page's components can register into it while they mount. The
 * previous page's scope (its tools and pending confirmations) is disposed when the event for the
 * new page arrives, that is once the new page is in place. Tool names do not change: page and
 * layout scopes are transparent (no name segment).
 *
 * On the server (no `document`, Inertia SSR included) it is inert: nothing is subscribed or created.
 * Call it once per page load in the client entry; `dispose()` undoes it.
 */
export function bindInertia(tm: Toolmark, options: BindInertiaOptions): InertiaBinding {
  if (environment.isServer()) return { ...INERT, toolmark: tm }
  const { router } = options
  const keyOf = options.key ?? ((page: InertiaPageLike) => page.component)
  const layout = tm.scope('', { transparent: true })
  let current: { key: string; scope: Scope } | undefined
  const prepared = new Map<string, Scope>()
  const listeners = new Set<() => void>()
  const cleanups: Array<() => void> = []
  let disposed = false
  let unpublish: () => void = () => {}

  const scopeForKey = (key: string): Scope => {
    if (current?.key === key) return current.scope
    let scope = prepared.get(key)
    if (!scope || scope.disposed) {
      scope = tm.scope('', { transparent: true })
      prepared.set(key, scope)
    }
    return scope
  }

  const commit = (page: InertiaPageLike): void => {
    if (disposed || !isPage(page)) return
    const key = keyOf(page)
    if (current?.key === key) return
    const scope = scopeForKey(key)
    const previous = current
    current = { key, scope }
    for (const [k, s] of prepared) if (k !== key) s.dispose()
    prepared.clear()
    previous?.scope.dispose()
    // The page on screen, for the devtools' registry (a status, nothing in the call path).
    unpublish()
    unpublish = publishRoute(tm, { page: page.component })
    for (const listener of [...listeners]) listener()
  }

  const first = options.initialPage ?? initialPageFromDocument()
  if (first) commit(first)

  const onPage = (event: CustomEvent<InertiaPageEventDetail>): void => commit(event.detail.page)
  cleanups.push(
    router.on('beforeUpdate', (event: CustomEvent<InertiaPageEventDetail>) => {
      if (!disposed && isPage(event.detail.page)) scopeForKey(keyOf(event.detail.page))
    }),
    router.on('navigate', onPage),
    router.on('success', onPage),
    router.on('clientVisit', onPage),
  )

  if (options.navigation !== false) {
    const handle = layout.register(
      navigationTool(router, typeof options.navigation === 'object' ? options.navigation : {}),
    )
    cleanups.push(() => handle.dispose())
  }

  if (options.echo) {
    cleanups.push(connectEcho(tm, { ...options.echo, router, ...(first ? { initialPage: first } : {}) }))
  }

  return {
    toolmark: tm,
    layout,
    get page() {
      return current?.scope ?? null
    },
    get key() {
      return current?.key
    },
    keyOf,
    scopeFor: (page) => (disposed ? null : scopeForKey(keyOf(page))),
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    dispose() {
      if (disposed) return
      disposed = true
      for (const cleanup of cleanups.splice(0)) cleanup()
      for (const scope of prepared.values()) scope.dispose()
      prepared.clear()
      current?.scope.dispose()
      current = undefined
      layout.dispose()
      unpublish()
      listeners.clear()
    },
  }
}
