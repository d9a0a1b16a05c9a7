import type { AnySchema, Scope, ToolDefinition } from '@toolmark/core'
import { liveDefinition, optionalKey, registerOwned } from '@toolmark/core/adapter'
import { untrack } from 'svelte'
import { getScopeContext, useToolmark } from './context.js'

export interface UseToolOptions {
  /**
   * Where to register: a `Scope` (or a getter of one), `null` to wait, or omitted for the nearest
   * ancestor's `useScope` (the registry root without one).
   */
  scope?: Scope | null | (() => Scope | null | undefined)
}

type AnyDefinition = ToolDefinition<AnySchema | undefined, unknown>

const hintsKey = (d: AnyDefinition) =>
  d.hints
    ? `${!!d.hints.readOnly}${!!d.hints.consequential}${!!d.hints.destructive}${!!d.hints.untrustedContent}`
    : ''

/**
 * Registers `definition` while the component is mounted (`$effect`, disposed in its teardown, which
 * also drops the tool's pending confirmations; never on the server). Pass the definition or a getter returning it (`() => ({ name: `${prefix}.save`, ... })`).
 * `run`, `summary`, `state`, `snapshot`, `sensitivePaths` and `anchors` are read from its latest
 * value; the tool is registered again only when its name, description, title, hints (by value),
 * schemas (by identity) or scope change. Call during component initialisation.
 */
export function useTool<S extends AnySchema | undefined = undefined, O = unknown>(
  definition: ToolDefinition<S, O> | (() => ToolDefinition<S, O>),
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = getScopeContext()
  const current = (): AnyDefinition =>
    (typeof definition === 'function' ? definition() : definition) as AnyDefinition
  const name = $derived(current().name)
  const description = $derived(current().description)
  const title = $derived(current().title)
  const hints = $derived(hintsKey(current()))
  const input = $derived(current().input)
  const output = $derived(current().output)
  const jsonSchema = $derived(current().jsonSchema)
  const optional = $derived(optionalKey(current()))
  const scope = $derived.by(() => {
    const explicit = typeof options.scope === 'function' ? options.scope() : options.scope
    return explicit === undefined ? provided?.current : explicit
  })

  $effect(() => {
    const where = scope
    const parts = { name, description, title, input, output, jsonSchema, optional }
    void hints // tracked: new hint flags mean a new registration
    if (where === null) return
    return untrack(() =>
      registerOwned(tm, where, liveDefinition({ ...parts, hints: current().hints }, current)),
    )
  })
}
