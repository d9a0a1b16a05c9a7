'use client'
import type { AnySchema, Scope, ToolDefinition, ToolHints } from '@toolmark/core'
import { liveDefinition, optionalKey, registerOwned, sameHints, schemaKey } from '@toolmark/core/adapter'
import { useEffect, useInsertionEffect, useRef } from 'react'
import { useCurrentScope, useToolmark } from './context.ts'

export interface UseToolOptions {
  /**
   * Where to register: a `Scope`, `null` to wait (nothing is registered until a scope is given), or
   * omitted for the nearest `<ToolScope>` (the registry root without one).
   */
  scope?: Scope | null
}

/** Keeps the previous hints object while its flags are equal, so inline literals do not re-register. */
function useStableHints(hints: ToolHints | undefined): ToolHints | undefined {
  const ref = useRef(hints)
  if (!sameHints(ref.current, hints)) ref.current = hints
  return ref.current
}

/** Keeps the previous schema while its structure (JSON Schema) is equal: inline schemas do not re-register. */
function useStableSchema<T>(schema: T): T {
  const ref = useRef(schema)
  if (ref.current !== schema && schemaKey(ref.current) !== schemaKey(schema)) ref.current = schema
  return ref.current
}

/**
 * Registers `definition` while the component is mounted (in an effect; disposed in its cleanup,
 * which also drops the tool's pending confirmations).
 *
 * `run`, `summary`, `state`, `snapshot`, `sensitivePaths` and `anchors` always use the latest render's
 * closures, so re-rendering never re-registers nor bumps `rev`. The tool is registered again only
 * when its name, description, title, hints (by value), schemas (by structure: their JSON Schema, so
 * `input: z.object({...})` written inline is fine) or scope change. Validation always uses the latest
 * render's schema, so refinements that JSON Schema cannot show still apply.
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
  const latest = useRef(definition as ToolDefinition<AnySchema | undefined, unknown>)
  useInsertionEffect(() => {
    latest.current = definition as ToolDefinition<AnySchema | undefined, unknown>
  })
  const hints = useStableHints(definition.hints)
  const { name, description, title } = definition
  const input = useStableSchema(definition.input)
  const output = useStableSchema(definition.output)
  const jsonSchema = useStableSchema(definition.jsonSchema)
  const optional = optionalKey(definition as ToolDefinition<AnySchema | undefined, unknown>)

  useEffect(() => {
    if (scope === null) return
    const parts = { name, description, title, hints, input, output, jsonSchema, optional }
    return registerOwned(
      tm,
      scope,
      liveDefinition(parts, () => latest.current),
    )
  }, [tm, scope, name, description, title, hints, input, output, jsonSchema, optional])
}
