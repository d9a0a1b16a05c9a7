'use client'
import { createToolmark, type Toolmark, type ToolmarkConsumer, type ToolmarkOptions } from '@toolmark/core'
import { attachConsumers } from '@toolmark/core/adapter'
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

/** Per registry: the consumers `connect` made (once settled) and how many providers hold them. */
interface Connection {
  started: Promise<readonly ToolmarkConsumer[]>
  ready: readonly ToolmarkConsumer[] | undefined
  holders: number
}

const connections = new WeakMap<Toolmark, Connection>()

/** Runs `connect` once per registry (again only after every holder let go of its consumers). */
function connection(tm: Toolmark, connect: Connect): Connection {
  let current = connections.get(tm)
  if (!current) {
    const made: Connection = {
      started: new Promise<readonly ToolmarkConsumer[]>((resolve) => resolve(connect(tm))),
      ready: undefined,
      holders: 0,
    }
    made.started.then(
      (list) => {
        made.ready = list
      },
      () => {
        if (connections.get(tm) === made) connections.delete(tm)
      },
    )
    connections.set(tm, made)
    current = made
  }
  return current
}

/**
 * Attaches the connection's consumers while held (letting go waits one microtask, as
 * `attachConsumers` says). When the last holder lets go, the consumers are disposed and the next
 * mount runs `connect` again.
 */
function hold(tm: Toolmark, made: Connection, list: readonly ToolmarkConsumer[]): () => void {
  made.holders += 1
  const detach = attachConsumers(tm, list)
  return () => {
    detach()
    queueMicrotask(() => {
      made.holders -= 1
      if (made.holders === 0 && connections.get(tm) === made) connections.delete(tm)
    })
  }
}

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
  const [latest] = useState(() => ({ connect, onConnectError }))
  latest.onConnectError = onConnectError
  useEffect(() => {
    const run = latest.connect
    if (!run) return
    const made = connection(tm, run)
    // Already connected (a remount): attach synchronously, before the previous holder lets go.
    if (made.ready) return hold(tm, made, made.ready)
    // (Should every holder unmount before `connect` settles, its consumers wait for the next mount.)
    let live = true
    let release: (() => void) | undefined
    made.started.then(
      (list) => {
        if (live) release = hold(tm, made, list)
      },
      (cause: unknown) => {
        if (live) (latest.onConnectError ?? console.error)(cause)
      },
    )
    return () => {
      live = false
      release?.()
    }
  }, [tm, latest])
  return <ReactToolmarkProvider toolmark={tm}>{children}</ReactToolmarkProvider>
}
