import type { Grant, GrantStore } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { onScopeDispose, type ShallowRef, shallowRef } from 'vue'

/** What `useGrants(store)` returns: the user's grants and a way to revoke one. */
export interface GrantsView {
  /** The grants, newest first (a new array only when they change). */
  grants: Readonly<ShallowRef<readonly Grant[]>>
  /** Revokes a grant: its tool asks again on its next call. */
  revoke(id: string): Promise<void>
}

/**
 * The grants of a grant store (`createGrantStore()` or `serverGrants()`, the store passed as
 * `createToolmark({ grants })`) as a shallow ref, unsubscribed in `onScopeDispose`.
 */
export function useGrants(store: GrantStore): GrantsView {
  const grants = shallowRef(store.list())
  if (!environment.isServer()) {
    onScopeDispose(
      store.subscribe(() => {
        grants.value = store.list()
      }),
      true,
    )
  }
  return { grants, revoke: async (id) => await store.revoke(id) }
}
