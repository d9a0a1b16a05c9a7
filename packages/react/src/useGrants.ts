'use client'
import type { Grant, GrantStore } from '@toolmark/core'
import { useMemo, useSyncExternalStore } from 'react'

/** What `useGrants(store)` returns: the user's grants and a way to revoke one. */
export interface GrantsView {
  /** The grants, newest first (identity changes only when they change). */
  grants: readonly Grant[]
  /** Revokes a grant: its tool asks again on its next call. */
  revoke(id: string): Promise<void>
}

/**
 * The grants of a grant store (`createGrantStore()` or `serverGrants()`, the store passed as
 * `createToolmark({ grants })`) as a reactive list, re-rendering when they change.
 */
export function useGrants(store: GrantStore): GrantsView {
  const grants = useSyncExternalStore(store.subscribe, store.list, store.list)
  return useMemo(() => ({ grants, revoke: async (id: string) => await store.revoke(id) }), [store, grants])
}
