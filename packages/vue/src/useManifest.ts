import type { Caller, Manifest, ToolManifest } from '@toolmark/core'
import { environment, readManifest } from '@toolmark/core/adapter'
import { type MaybeRefOrGetter, onScopeDispose, type ShallowRef, shallowRef, toValue, watch } from 'vue'
import { useToolmark } from './injection.ts'

/** Options of `useManifest`. */
export interface UseManifestOptions {
  /** Only what this caller may see (every visible tool without one). */
  caller?: Caller
  /** `'full'` adds the input and output JSON Schemas. */
  detail?: 'summary' | 'full'
}

/**
 * The current manifest as a shallow ref, updated once per revision (`tm.subscribe` is debounced)
 * and unsubscribed in `onScopeDispose`. Options may be a ref or getter. Static on the server.
 */
export function useManifest(
  options: MaybeRefOrGetter<{ caller?: Caller; detail: 'full' }>,
): Readonly<ShallowRef<Manifest<ToolManifest>>>
export function useManifest(
  options?: MaybeRefOrGetter<{ caller?: Caller; detail?: 'summary' }>,
): Readonly<ShallowRef<Manifest>>
export function useManifest(options?: MaybeRefOrGetter<UseManifestOptions>): Readonly<ShallowRef<Manifest>> {
  const tm = useToolmark()
  const read = () => readManifest(tm, toValue(options))
  const manifest = shallowRef(read())
  if (!environment.isServer()) {
    const update = () => {
      manifest.value = read()
    }
    onScopeDispose(tm.subscribe(update), true)
    watch(() => toValue(options), update, { deep: true })
  }
  return manifest
}
