'use client'
import type { Toolmark, ToolmarkConsumer } from '@toolmark/core'
import { type ReactNode, useEffect, useRef } from 'react'
import { ToolmarkContext } from './context.ts'

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

/** Provides `toolmark` to its subtree and attaches `consumers` for as long as it is mounted. */
export function ToolmarkProvider({ toolmark, consumers = NONE, children }: ToolmarkProviderProps): ReactNode {
  const stable = useStableList(consumers)
  useEffect(() => {
    const detach = stable.map((consumer) => toolmark.use(consumer))
    return () => {
      for (const dispose of detach) dispose()
    }
  }, [toolmark, stable])
  return <ToolmarkContext.Provider value={toolmark}>{children}</ToolmarkContext.Provider>
}
