'use client'
import type { Toolmark, ToolmarkConsumer } from '@toolmark/core'
import { attachConsumers } from '@toolmark/core/adapter'
import { type ReactNode, useEffect, useRef } from 'react'
import { ToolmarkContext } from './context.ts'

/** Props of `<ToolmarkProvider>`. */
export interface ToolmarkProviderProps {
  /** The registry, usually created once per page with `createToolmark(...)`. */
  toolmark: Toolmark
  /** Consumers (`bridge(...)`, `webmcp(...)`, ...) attached with `tm.use` while the provider is mounted. */
  consumers?: readonly ToolmarkConsumer[]
  children?: ReactNode
}

const NONE: readonly ToolmarkConsumer[] = []

/** Keeps the previous array while its items are the same, so an inline `consumers={[...]}` is stable. */
function useStableList<T>(list: readonly T[]): readonly T[] {
  const ref = useRef(list)
  const prev = ref.current
  if (prev !== list && (prev.length !== list.length || prev.some((item, i) => item !== list[i]))) {
    ref.current = list
  }
  return ref.current
}

/**
 * Provides `toolmark` to its subtree and attaches `consumers` for as long as it is mounted.
 *
 * Detaching waits one microtask: StrictMode's simulated unmount → mount (and fast refresh) re-attach
 * within the same task, so the core's ref-count keeps a consumer such as a bridge attached once,
 * instead of closing its transport and opening it again. An inline `consumers={[...]}` array with the
 * same items is not attached again. On the server nothing is attached (effects do not run).
 */
export function ToolmarkProvider({ toolmark, consumers = NONE, children }: ToolmarkProviderProps): ReactNode {
  const stable = useStableList(consumers)
  useEffect(() => attachConsumers(toolmark, stable), [toolmark, stable])
  return <ToolmarkContext.Provider value={toolmark}>{children}</ToolmarkContext.Provider>
}
