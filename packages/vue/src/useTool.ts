import type { AnySchema, Scope, ToolDefinition } from '@toolmark/core'
import { liveDefinition, optionalKey, registerOwned } from '@toolmark/core/adapter'
import { type MaybeRefOrGetter, onScopeDispose, toValue, watch } from 'vue'
import { injectScope, useToolmark } from './injection.ts'
import { onClientStart } from './lifecycle.ts'

export interface UseToolOptions {
  /**
   * Where to register: a `Scope` (or a ref/getter of one), `null` to wait, or omitted for the
   * nearest ancestor's `useScope` (the registry root without one).
   */
  scope?: MaybeRefOrGetter<Scope | null | undefined>
}

type AnyDefinition = ToolDefinition<AnySchema | undefined, unknown>

const hintsKey = (d: AnyDefinition) =>
  d.hints
    ? `${!!d.hints.readOnly}${!!d.hints.consequential}${!!d.hints.destructive}${!!d.hints.untrustedContent}`
    : ''

/**
 * Registers `definition` while the component is mounted (the same moment in a bare `effectScope`)
 * and disposes it in `onScopeDispose`, dropping its pending confirmations. The definition may be a
 * plain object, a ref or a getter: `run`, `summary`, `state`, `snapshot`, `sensitivePaths` and
 * `anchors` are always read from its latest value, and the tool is registered again only when its
 * name, description, title, hints (by value), schemas (by identity) or scope change. Nothing
 * registers during server rendering.
 */
export function useTool<S extends AnySchema | undefined = undefined, O = unknown>(
  definition: MaybeRefOrGetter<ToolDefinition<S, O>>,
  options: UseToolOptions = {},
): void {
  const tm = useToolmark()
  const provided = injectScope()
  const current = () => toValue(definition) as AnyDefinition
  const scope = (): Scope | null | undefined => {
    const explicit = toValue(options.scope)
    return explicit === undefined ? provided?.value : explicit
  }
  let dispose: (() => void) | undefined
  const release = () => {
    dispose?.()
    dispose = undefined
  }

  onClientStart(
    () => {
      watch(
        [
          () => current().name,
          () => current().description,
          () => current().title,
          () => hintsKey(current()),
          () => current().input,
          () => current().output,
          () => current().jsonSchema,
          () => optionalKey(current()),
          scope,
        ],
        ([name, description, title, , input, output, jsonSchema, optional, where]) => {
          release()
          if (where === null) return
          const parts = {
            name,
            description,
            title,
            hints: current().hints,
            input,
            output,
            jsonSchema,
            optional,
          }
          dispose = registerOwned(tm, where, liveDefinition(parts, current))
        },
        { immediate: true, flush: 'sync' },
      )
    },
    'useTool',
    tm.dev,
  )
  onScopeDispose(release, true)
}
