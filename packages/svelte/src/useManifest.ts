import type { Caller, Manifest, ToolManifest } from '@toolmark/core'
import { createManifestView } from '@toolmark/core/adapter'
import { useToolmark } from './context.js'
import { externalStore, type ReactiveStore } from './store.js'

/** Options of `useManifest`. */
export interface UseManifestOptions {
  /** Only what this caller may see (every visible tool without one). */
  caller?: Caller
  /** `'full'` adds the input and output JSON Schemas. */
  detail?: 'summary' | 'full'
}

/**
 * The current manifest as a store (`$manifest`) with a `.current` view, updated once per revision
 * (`tm.subscribe` is debounced) while subscribed. Call during component initialisation.
 */
export function useManifest(options: {
  caller?: Caller
  detail: 'full'
}): ReactiveStore<Manifest<ToolManifest>>
export function useManifest(options?: { caller?: Caller; detail?: 'summary' }): ReactiveStore<Manifest>
export function useManifest(options: UseManifestOptions = {}): ReactiveStore<Manifest> {
  const view = createManifestView(useToolmark(), options)
  return externalStore(view.getSnapshot, view.subscribe)
}
