import type { AnySchema, Scope, ToolDefinition } from '@toolmark/core'
import { createToolBinding, structuralKey } from '@toolmark/core/adapter'
import { type MaybeRefOrGetter, onScopeDispose, toValue, watch } from 'vue'
import { injectScope, useToolmark } from './injection.ts'
import { onClientStart } from './lifecycle.ts'

/** Options of `useTool`. */
export interface UseToolOptions {
  /**
   * Where to register: a `Scope` (or a ref/getter of one), `null` to wait, or omitted for the
   * nearest ancestor's `useScope` (the registry root without one).
   */
  scope?: MaybeRefOrGetter<Scope | null | undefined>
}

type AnyDefinition = ToolDefinition<AnySchema | undefined, unknown>

/**
 * Registers `definition` while the component is mounted (the same moment in a bare `effectScope`)
 * and disposes it in `onScopeDispose`, dropping its pending confirmations. Returns nothing. The
 * definition may be a plain object, a ref or a getter. Every field reaches the registry: `run`,
 * `summary`, `changes`, `state`, `snapshot`, `sensitivePaths`, `anchors` and `undoable` are always
 * read from its latest value, and the tool is registered again only when its name, description,
 * title, `mode`, hints (by value), schemas (by structure: their JSON Schema, so a getter may build
 * `z.object({...})` each time), `sensitivePaths` list, the set of optional callbacks it declares,
 * or scope change.
 *
 * A name another mounted tool holds: a development registry throws `ToolmarkError` `duplicate_name`
 * from `onMounted` (Vue hands it to `onErrorCaptured` and `app.config.errorHandler`; inside a bare
 * `effectScope` it throws from `useTool`); a production one reports it as an error event and
 * registers this tool as soon as the name frees. Nothing registers during server rendering.
 */
export function useTool<S extends AnySchema | undefined = undefined, O = unknown>(
  definition: MaybeRefOrGetter<ToolDefinition<S, O>>,
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = injectScope()
  const binding = createToolBinding(tm)
  let cleanup: (() => void) | undefined
  onClientStart(
    () => {
      watch(
        () => {
          const def = toValue(definition) as AnyDefinition
          const explicit = toValue(options.scope)
          // Read here so that a change of any structural field (even nested in a ref) is tracked.
          return [def, explicit === undefined ? provided?.value : explicit, structuralKey(def)] as const
        },
        ([def, where]) => binding.update(def, where),
        { immediate: true, flush: 'sync' },
      )
      cleanup = binding.mount()
    },
    'useTool',
    tm.dev,
  )
  onScopeDispose(() => cleanup?.(), true)
}
