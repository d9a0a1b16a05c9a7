/** The part of an Inertia page object the binding reads (`@inertiajs/core`'s `Page` fits). */
export interface InertiaPageLike {
  /** The page component's name, e.g. `'Challenges/Index'`. */
  component: string
  /** The page URL (path and query). */
  url: string
  /** The page props, shared props included. */
  props: Record<string, unknown>
}

/** The detail of the router events the binding listens to. */
export interface InertiaPageEventDetail {
  page: InertiaPageLike
}

/** Router events that carry the new page. */
export type InertiaPageEventName = 'beforeUpdate' | 'navigate' | 'success' | 'clientVisit'

/** The visit callbacks the navigation tool passes to `router.visit`. */
export interface InertiaVisitCallbacks {
  replace?: boolean
  onBefore?: (visit: unknown) => boolean | undefined
  onStart?: (visit: unknown) => void
  onCancel?: () => void
  onCancelToken?: (token: { cancel(): void }) => void
  onSuccess?: (page: InertiaPageLike) => void
  onError?: (errors: Record<string, string>) => void
  /**
   * An HTTP error (status 400 or more) or a response that is not an Inertia page; returning `false`
   * drops it (no error page, no modal).
   */
  onHttpException?: (response: { status: number }) => boolean | undefined
  onFinish?: (visit: { cancelled?: boolean; interrupted?: boolean; completed?: boolean }) => void
}

/**
 * The part of Inertia's `router` the binding uses: `router` from `@inertiajs/react`, `@inertiajs/vue3`,
 * `@inertiajs/svelte` or `@inertiajs/core` fits without a cast.
 */
export interface InertiaRouterLike {
  /** Subscribes to a router event; returns the unsubscribe (a no-op on the server). */
  on(
    type: InertiaPageEventName,
    callback: (event: CustomEvent<InertiaPageEventDetail>) => unknown,
  ): () => void
  /** Starts a visit (returns nothing: the outcome arrives through the callbacks). */
  visit(href: string, options: InertiaVisitCallbacks): void
}
