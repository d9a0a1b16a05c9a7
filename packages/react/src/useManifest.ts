'use client'
import type { Caller, Manifest, ToolManifest } from '@toolmark/core'
import { useCallback, useMemo, useSyncExternalStore } from 'react'
import { useToolmark } from './context.ts'

export interface UseManifestOptions {
  /** Only what this caller may see (every visible tool without one). */
  caller?: Caller
  /** `'full'` adds the input and output JSON Schemas. */
  detail?: 'summary' | 'full'
}

/**
 * The current manifest, re-rendering once per revision (`tm.subscribe` is debounced). The snapshot
 * is cached per `rev`, so renders in between keep its identity.
 */
export function useManifest(options: { caller?: Caller; detail: 'full' }): Manifest<ToolManifest>
export function useManifest(options?: { caller?: Caller; detail?: 'summary' }): Manifest
export function useManifest(options: UseManifestOptions = {}): Manifest {
  const tm = useToolmark()
  const { caller, detail = 'summary' } = options
  const subscribe = useCallback((onChange: () => void) => tm.subscribe(onChange), [tm])
  const getSnapshot = useMemo(() => {
    let cached: { rev: number; value: Manifest } | undefined
    return (): Manifest => {
      const rev = tm.rev
      if (cached?.rev !== rev) {
        const base = caller ? { caller } : {}
        cached = { rev, value: detail === 'full' ? tm.manifest({ ...base, detail }) : tm.manifest(base) }
      }
      return cached.value
    }
  }, [tm, caller, detail])
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot)
}
