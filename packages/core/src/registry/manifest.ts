import type { Entry } from '../tool/entry.ts'
import type { Caller, Manifest, ToolCaller, ToolInfo, ToolManifest, ToolManifestSummary } from '../types.ts'

/** What manifests read from the registry. */
export interface ManifestSource {
  readonly rev: number
  readonly tools: ReadonlyMap<string, Entry>
  /** Whether `caller` may see (and so call) `entry`. */
  allows(entry: Entry, caller: Caller): boolean
  /** A tool's JSON Schema could not be derived. */
  conversionFailed(entry: Entry, err: unknown): void
}

/**
 * The caller-filtered views of the registry: manifests (sorted by name, cached per revision and
 * caller), single entries (`describe`, `info`) and lookup of visible tools.
 */
export class Manifests {
  readonly #source: ManifestSource
  readonly #cache = new Map<string, Manifest<ToolManifestSummary>>()
  #cacheRev = -1

  constructor(source: ManifestSource) {
    this.#source = source
  }

  manifest(caller: Caller | undefined, full: boolean): Manifest<ToolManifestSummary> {
    const source = this.#source
    if (this.#cacheRev !== source.rev) {
      this.#cache.clear()
      this.#cacheRev = source.rev
    }
    const key = `${caller ?? '*'}:${full ? 'f' : 's'}`
    const cached = this.#cache.get(key)
    if (cached) return cached
    const entries = [...source.tools.values()]
      .filter((e) => e.scope.visible() && (caller === undefined || source.allows(e, caller)))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const tools = entries.map((e) => (full ? this.fullEntry(e) : e.summary))
    const manifest = Object.freeze({ rev: source.rev, tools: Object.freeze(tools) as ToolManifestSummary[] })
    this.#cache.set(key, manifest)
    return manifest
  }

  /** The full entry (with `inputSchema`), derived once per registration. */
  fullEntry(entry: Entry): ToolManifest {
    return entry.full((err) => this.#source.conversionFailed(entry, err))
  }

  /** A visible tool the caller may see, or undefined. */
  lookup(name: string, caller: Caller | undefined): Entry | undefined {
    const entry = typeof name === 'string' ? this.#source.tools.get(name) : undefined
    if (!entry?.scope.visible()) return undefined
    return caller === undefined || this.#source.allows(entry, caller) ? entry : undefined
  }

  describe(name: string, caller: Caller | undefined): ToolManifest | undefined {
    const entry = this.lookup(name, caller)
    return entry ? this.fullEntry(entry) : undefined
  }

  info(name: string): ToolInfo | undefined {
    const entry = typeof name === 'string' ? this.#source.tools.get(name) : undefined
    if (!entry) return undefined
    return {
      ...entry.summary,
      scope: entry.scope.path,
      visible: entry.scope.visible(),
      needsConfirmation: entry.confirms,
      ...(entry.callers && { callers: [...entry.callers] as ToolCaller[] }),
    }
  }
}
