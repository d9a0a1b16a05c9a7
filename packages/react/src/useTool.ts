'use client'
import type { AnySchema, Scope, ToolDefinition } from '@toolmark/core'
import { createToolBinding } from '@toolmark/core/adapter'
import { useEffect, useInsertionEffect, useMemo } from 'react'
import { useCurrentScope, useToolmark } from './context.ts'

/** Options of `useTool`. */
export interface UseToolOptions {
  /**
   * Where to register: a `Scope`, `null` to wait (nothing is registered until a scope is given), or
   * omitted for the nearest `<ToolScope>` (the registry root without one).
   */
  scope?: Scope | null
}

/**
 * Registers `definition` while the component is mounted (in an effect; disposed in its cleanup,
 * which also drops the tool's pending confirmations). Returns nothing.
 *
 * Every field of the definition reaches the registry. `run`, `summary`, `changes`, `state`,
 * `snapshot`, `sensitivePaths`, `anchors` and `undoable` always use the latest render's values, so
 * re-rendering never re-registers nor bumps `rev`. The tool is registered again only when its name,
 * description, title, `mode`, hints (by value), schemas (by structure: their JSON Schema, so
 * `input: z.object({...})` written inline is fine), `sensitivePaths` list, the set of optional
 * callbacks it declares, or scope change. Validation always uses the latest render's schema, so
 * refinements that JSON Schema cannot show still apply.
 *
 * A name another mounted tool holds: a development registry throws `ToolmarkError` `duplicate_name`
 * from the effect (the nearest error boundary catches it); a production one reports it as an error
 * event and registers this tool as soon as the name frees. Other bad definitions behave as
 * `tm.register` does (throw in development, an error event in production, nothing registered).
 * Registration is synchronous in the core, so StrictMode's mount → unmount → mount and fast refresh
 * leave exactly one registration. On the server nothing is registered (effects do not run).
 */
export function useTool<S extends AnySchema | undefined = undefined, O = unknown>(
  definition: ToolDefinition<S, O>,
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = useCurrentScope()
  const scope = options.scope === undefined ? provided : options.scope
  const binding = useMemo(() => createToolBinding(tm), [tm])
  // Before any effect of this commit: the closures of this render apply from now on.
  useInsertionEffect(() => {
    binding.update(definition as ToolDefinition<AnySchema | undefined, unknown>, scope)
  })
  useEffect(() => binding.mount(), [binding])
}
