import type { Grant, GrantStore } from '@toolmark/core'
import { externalStore, type ReactiveStore } from './store.js'

/** What `useGrants(store)` returns: a store of the user's grants (`$grants`), plus a way to revoke one. */
export interface GrantsStore extends ReactiveStore<readonly Grant[]> {
  /** Revokes a grant: its tool asks again on its next call. */
  revoke(id: string): Promise<void>
}

/**
 * The grants of a grant store (`createGrantStore()` or `serverGrants()`, the store passed as
 * `createToolmark({ grants })`), newest first, as a store that follows them while someone listens.
 */
export function useGrants(grants: GrantStore): GrantsStore {
  const store = externalStore(grants.list, grants.subscribe)
  return {
    subscribe: store.subscribe,
    get current() {
      return store.current
    },
    revoke: async (id) => await grants.revoke(id),
  }
}
