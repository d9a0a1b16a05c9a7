'use client'
import type { Caller, Manifest, ToolManifest } from '@toolmark/core'
import { createManifestView } from '@toolmark/core/adapter'
import { useMemo, useSyncExternalStore } from 'react'
import { useToolmark } from './context.ts'

/** Options of `useManifest`. */
export interface UseManifestOptions {
  /** Only what this caller may see (every visible tool without one). */
  caller?: Caller
  /** `'full'` adds the input and output JSON Schemas. */
  detail?: 'summary' | 'full'
}

/**
 * The current manifest, re-rendering once per revision (`tm.subscribe` is debounced). Renders in
 * between keep the same object (the core caches one manifest per revision and options).
 */
export function useManifest(options: { caller?: Caller; detail: 'full' }): Manifest<ToolManifest>
export function useManifest(options?: { caller?: Caller; detail?: 'summary' }): Manifest
export function useManifest(options: UseManifestOptions = {}): Manifest {
  const tm = useToolmark()
  const { caller, detail } = options
  const view = useMemo(() => createManifestView(tm, { caller, detail }), [tm, caller, detail])
  return useSyncExternalStore(view.subscribe, view.getSnapshot, view.getSnapshot)
}
