import type { AnySchema, PendingConfirmation, Scope, ToolDefinition, Toolmark } from '@toolmark/core'
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react'

const ToolmarkContext = createContext<Toolmark | null>(null)

/** Makes the page's registry available to `useToolmark` and the registration hooks. */
export function ToolmarkProvider({ tm, children }: { tm: Toolmark; children: ReactNode }): ReactNode {
  return <ToolmarkContext value={tm}>{children}</ToolmarkContext>
}

/** The registry of the page. */
export function useToolmark(): Toolmark {
  const tm = useContext(ToolmarkContext)
  if (!tm) throw new Error('useToolmark must be used inside <ToolmarkProvider>')
  return tm
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools with different input schemas.
type AnyTool = ToolDefinition<any, any>

/**
 * Registers `tools` for as long as the component is mounted, in a scope named `scope` (or at the root).
 * The scope is created in the effect and disposed by its cleanup, so StrictMode's second mount starts
 * from a clean registry. `tools` must be stable (built once from stable stores).
 */
export function useScopeTools(scope: string | undefined, tools: readonly AnyTool[]): void {
  const tm = useToolmark()
  useEffect(() => {
    const owner: Scope | Toolmark = scope === undefined ? tm : tm.scope(scope)
    const handles = tools.map((tool) => owner.register(tool as ToolDefinition<AnySchema | undefined>))
    return () => {
      if (scope === undefined) for (const handle of handles) handle.dispose()
      else (owner as Scope).dispose()
    }
  }, [tm, scope, tools])
}

/** The deferred confirmations waiting for the user, re-read on every confirmation event and revision. */
export function usePendingConfirmationList(): readonly PendingConfirmation[] {
  const tm = useToolmark()
  const [pending, setPending] = useState<readonly PendingConfirmation[]>(() => tm.pendingConfirmations())
  useEffect(() => {
    const update = (): void => setPending(tm.pendingConfirmations())
    const offConfirm = tm.events.on('confirm', () => queueMicrotask(update))
    const offChange = tm.subscribe(update)
    update()
    return () => {
      offConfirm()
      offChange()
    }
  }, [tm])
  return pending
}

/** The current time, refreshed every `intervalMs` (for countdowns). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs)
    return () => clearInterval(timer)
  }, [intervalMs])
  return now
}
