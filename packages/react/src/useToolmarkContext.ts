'use client'
import type { ContextDefinition } from '@toolmark/core'
import { createContextBinding } from '@toolmark/core/adapter'
import { useEffect, useInsertionEffect, useMemo } from 'react'
import { useCurrentScope, useToolmark } from './context.ts'
import type { UseToolOptions } from './useTool.ts'

/**
 * Declares a readable context entry (`tm.context`) while the component is mounted, in the nearest
 * `<ToolScope>` (or `options.scope`), and disposes it in the effect's cleanup. Each render hands the
 * latest `value` to the registry, which notifies consumers only when its masked JSON changed. The
 * entry is declared again only when its name, title, description, `sensitivePaths` list or scope
 * change. Returns nothing; nothing is declared on the server.
 */
export function useToolmarkContext(definition: ContextDefinition, options: UseToolOptions = {}): void {
  const tm = useToolmark()
  const provided = useCurrentScope()
  const scope = options.scope === undefined ? provided : options.scope
  const binding = useMemo(() => createContextBinding(tm), [tm])
  useInsertionEffect(() => {
    binding.update(definition, scope)
  })
  useEffect(() => binding.mount(), [binding])
}
