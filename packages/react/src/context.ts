'use client'
import type { Scope, Toolmark } from '@toolmark/core'
import { createContext, useContext } from 'react'

/** The Toolmark instance of a subtree (set by `<ToolmarkProvider>`). */
export const ToolmarkContext = createContext<Toolmark | null>(null)

/**
 * The scope of a subtree (set by `<ToolScope>`): `undefined` means the registry root, `null` a scope
 * that is not created yet (its tools wait for it instead of landing at the root).
 */
export const ScopeContext = createContext<Scope | null | undefined>(undefined)

/** The message thrown by `useToolmark()` outside a `<ToolmarkProvider>`. */
export const NO_TOOLMARK = 'No Toolmark found: wrap your component tree in <ToolmarkProvider toolmark={tm}>.'

/** The Toolmark instance provided above this component; throws a clear error without a provider. */
export function useToolmark(): Toolmark {
  const tm = useContext(ToolmarkContext)
  if (!tm) throw new Error(NO_TOOLMARK)
  return tm
}

/** The scope provided above this component (`undefined` at the root, `null` while it is being created). */
export function useCurrentScope(): Scope | null | undefined {
  return useContext(ScopeContext)
}
