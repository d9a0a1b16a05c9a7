import type { ContextDefinition } from '@toolmark/core'
import { contextKey, createContextBinding } from '@toolmark/core/adapter'
import { untrack } from 'svelte'
import { getScopeContext, useToolmark } from './context.js'
import type { UseToolOptions } from './useTool.svelte.js'

/**
 * Declares a readable context entry (`tm.context`) while the component is mounted (`$effect`,
 * disposed in its teardown; never on the server), in the nearest `useScope` (or `options.scope`).
 * Pass the definition or a getter returning it (`() => ({ name: 'order', description, value: order })`):
 * a change of its value, even deep in a `$state` object, is handed to the registry, which notifies
 * consumers only when the masked JSON changed. The entry is declared again only when its name,
 * title, description, `sensitivePaths` list or scope change. Call during component initialisation.
 */
export function useToolmarkContext(
  definition: ContextDefinition | (() => ContextDefinition),
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = getScopeContext()
  const binding = createContextBinding(tm)
  $effect.pre(() => {
    const def = typeof definition === 'function' ? definition() : definition
    const explicit = typeof options.scope === 'function' ? options.scope() : options.scope
    const where = explicit === undefined ? provided?.current : explicit
    contextKey(def)
    try {
      JSON.stringify(def.value) // tracked deeply: a change anywhere in a $state value is seen
    } catch {
      // Not JSON: the registry reports it.
    }
    untrack(() => binding.update(def, where))
  })
  $effect(() => untrack(() => binding.mount()))
}
