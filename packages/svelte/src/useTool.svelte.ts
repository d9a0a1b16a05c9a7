import type { AnySchema, Scope, ToolDefinition } from '@toolmark/core'
import { createToolBinding, structuralKey } from '@toolmark/core/adapter'
import { untrack } from 'svelte'
import { getScopeContext, useToolmark } from './context.js'

/** Options of `useTool`. */
export interface UseToolOptions {
  /**
   * Where to register: a `Scope` (or a getter of one), `null` to wait, or omitted for the nearest
   * ancestor's `useScope` (the registry root without one).
   */
  scope?: Scope | null | (() => Scope | null | undefined)
}

type AnyDefinition = ToolDefinition<AnySchema | undefined, unknown>

/**
 * Registers `definition` while the component is mounted (`$effect`, disposed in its teardown, which
 * also drops the tool's pending confirmations; never on the server). Returns nothing. Pass the
 * definition or a getter returning it (`() => ({ name: `${prefix}.save`, ... })`). Every field
 * reaches the registry: `run`, `summary`, `changes`, `state`, `snapshot`, `sensitivePaths`, `anchors`
 * and `undoable` are read from its latest value, and the tool is registered again only when its name,
 * description, title, `mode`, hints (by value), schemas (by structure: their JSON Schema, so the
 * getter may build `z.object({...})` each time), `sensitivePaths` list, the set of optional callbacks
 * it declares, or scope change.
 *
 * A name another mounted tool holds: a development registry throws `ToolmarkError` `duplicate_name`
 * from the effect (the nearest `<svelte:boundary>` catches it, else it reaches `mount`'s caller); a
 * production one reports it as an error event and registers this tool as soon as the name frees.
 * Call during component initialisation.
 */
export function useTool<S extends AnySchema | undefined = undefined, O = unknown>(
  definition: ToolDefinition<S, O> | (() => ToolDefinition<S, O>),
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = getScopeContext()
  const binding = createToolBinding(tm)
  $effect.pre(() => {
    const def = (typeof definition === 'function' ? definition() : definition) as AnyDefinition
    const explicit = typeof options.scope === 'function' ? options.scope() : options.scope
    const where = explicit === undefined ? provided?.current : explicit
    structuralKey(def) // tracked: a change of any structural field (even in a $state object) is seen
    untrack(() => binding.update(def, where))
  })
  $effect(() => untrack(() => binding.mount()))
}
