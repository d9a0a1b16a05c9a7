'use client'
import { createToolmark, type Toolmark, type ToolmarkConsumer, type ToolmarkOptions } from '@toolmark/core'
import { ToolmarkProvider as ReactToolmarkProvider } from '@toolmark/react'
import { type ReactNode, useEffect, useState } from 'react'

/** What `connect` returns: the consumers to attach (a bridge, WebMCP, ...), now or once they are ready. */
export type Connect = (tm: Toolmark) => readonly ToolmarkConsumer[] | Promise<readonly ToolmarkConsumer[]>

export interface ToolmarkProviderProps {
  /** Options of the tab's registry; read once, when the tab's registry is created. */
  options?: ToolmarkOptions
  /**
   * Creates the consumers (e.g. `bridge({ transport })`). Called in an effect, at most once per tab,
   * never on the server; its result is kept for the tab, so StrictMode and remounts reuse it.
   */
  connect?: Connect
  /** Called when `connect` throws or rejects (default `console.error`). */
  onConnectError?: (cause: unknown) => void
  children?: ReactNode
}

const TAB_KEY = Symbol.for('@toolmark/next.tab')

type TabHolder = { [TAB_KEY]?: Toolmark }

/**
 * The tab's registry: created on first use and kept on `window`, so it survives client navigations,
 * remounts and module re-evaluation (fast refresh); a full reload starts a new one. Browser only.
 */
export function tabToolmark(options?: ToolmarkOptions): Toolmark {
  const holder = window as unknown as TabHolder
  holder[TAB_KEY] ??= createToolmark(options)
  return holder[TAB_KEY]
}

const connected = new WeakMap<Toolmark, Promise<readonly ToolmarkConsumer[]>>()

/** Runs `connect` once per registry and remembers its outcome. */
function connectOnce(tm: Toolmark, connect: Connect): Promise<readonly ToolmarkConsumer[]> {
  let started = connected.get(tm)
  if (!started) {
    started = new Promise<readonly ToolmarkConsumer[]>((resolve) => resolve(connect(tm)))
    connected.set(tm, started)
  }
  return started
}

const NONE: readonly ToolmarkConsumer[] = []

/**
 * The provider for the root layout (`app/layout.tsx`). In the browser it uses one registry per tab
 * ({@link tabToolmark}); while server rendering it makes a throwaway registry per render (nothing
 * registers on the server, since registration happens in effects). Creating it has no side effects;
 * `connect` runs in an effect, once per tab, and its consumers stay attached while the provider is
 * mounted. The root layout persists across client navigations, so the registry, its consumers and the
 * bridge's clientId survive them; only a full reload makes new ones.
 */
export function ToolmarkProvider({
  options,
  connect,
  onConnectError,
  children,
}: ToolmarkProviderProps): ReactNode {
  const [tm] = useState(() =>
    typeof window === 'undefined' ? createToolmark(options) : tabToolmark(options),
  )
  const [consumers, setConsumers] = useState(NONE)
  const [latest] = useState(() => ({ connect, onConnectError }))
  latest.onConnectError = onConnectError
  useEffect(() => {
    const run = latest.connect
    if (!run) return
    let live = true
    connectOnce(tm, run).then(
      (list) => {
        if (live) setConsumers(list)
      },
      (cause: unknown) => {
        if (live) (latest.onConnectError ?? console.error)(cause)
      },
    )
    return () => {
      live = false
    }
  }, [tm, latest])
  return (
    <ReactToolmarkProvider toolmark={tm} consumers={consumers}>
      {children}
    </ReactToolmarkProvider>
  )
}
