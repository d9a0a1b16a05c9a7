'use client'
import type { ReactNode } from 'react'
import { ScopeContext } from './context.ts'
import { type UseScopeOptions, useScope } from './useScope.ts'

/** Props of `<ToolScope>`: `useScope` options plus the scope name and the subtree. */
export interface ToolScopeProps extends UseScopeOptions {
  /** The scope's name segment (its tools are named `<name>.<tool>`). */
  name: string
  children?: ReactNode
}

/**
 * A scope for a subtree: created on mount, disposed on unmount, and used by every `useTool` below
 * (which waits for it rather than registering at the root). A bad `name` behaves as in `useScope`.
 */
export function ToolScope({ name, children, ...options }: ToolScopeProps): ReactNode {
  const scope = useScope(name, options)
  return <ScopeContext.Provider value={scope}>{children}</ScopeContext.Provider>
}
