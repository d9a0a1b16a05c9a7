import type { ContextDefinition } from '@toolmark/core'
import { contextKey, createContextBinding } from '@toolmark/core/adapter'
import { type MaybeRefOrGetter, onScopeDispose, toValue, watch } from 'vue'
import { injectScope, useToolmark } from './injection.ts'
import { onClientStart } from './lifecycle.ts'
import type { UseToolOptions } from './useTool.ts'

/** The value's JSON, read deeply so that a change anywhere in a reactive value is tracked. */
function track(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return '' // not JSON: the registry reports it
  }
}

/**
 * Declares a readable context entry (`tm.context`) while the component is mounted (the same moment
 * in a bare `effectScope`), in the nearest `useScope` (or `options.scope`), and disposes it in
 * `onScopeDispose`. The definition may be a plain object, a ref or a getter; a change of its value,
 * even deep in a reactive object, is handed to the registry, which notifies consumers only when the
 * masked JSON changed. The entry is declared again only when its name, title, description,
 * `sensitivePaths` list or scope change. Nothing is declared during server rendering.
 */
export function useToolmarkContext(
  definition: MaybeRefOrGetter<ContextDefinition>,
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = injectScope()
  const binding = createContextBinding(tm)
  let cleanup: (() => void) | undefined
  onClientStart(
    () => {
      watch(
        () => {
          const def = toValue(definition)
          const explicit = toValue(options.scope)
          return [
            def,
            explicit === undefined ? provided?.value : explicit,
            contextKey(def),
            track(def.value),
          ] as const
        },
        ([def, where]) => binding.update(def, where),
        { immediate: true, flush: 'sync' },
      )
      cleanup = binding.mount()
    },
    'useToolmarkContext',
    tm.dev,
  )
  onScopeDispose(() => cleanup?.(), true)
}
