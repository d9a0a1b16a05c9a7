import type { Caller, Manifest, ToolManifest, Toolmark } from '../types.ts'
import type { ExternalSource } from './views.ts'

/** Which manifest a view reads: for one caller (every visible tool without one), summary or full. */
export interface ManifestViewOptions {
  /** Only what this caller may see (every visible tool without one). */
  caller?: Caller | undefined
  /** `'full'` adds the input and output JSON Schemas. */
  detail?: 'summary' | 'full' | undefined
}

/** `tm.manifest(options)` with `options` in the shape the adapters' `useManifest` accept. */
export function readManifest(tm: Toolmark, options: ManifestViewOptions = {}): Manifest {
  const { caller, detail } = options
  const base = caller === undefined ? {} : { caller }
  return detail === 'full' ? (tm.manifest({ ...base, detail }) as Manifest<ToolManifest>) : tm.manifest(base)
}

/**
 * The manifest for `options`, notified once per revision (`tm.subscribe` is debounced). The core
 * keeps one manifest object per revision and options, so snapshots keep their identity in between.
 */
export function createManifestView(
  tm: Toolmark,
  options: ManifestViewOptions = {},
): ExternalSource<Manifest> {
  return { subscribe: (onChange) => tm.subscribe(onChange), getSnapshot: () => readManifest(tm, options) }
}
