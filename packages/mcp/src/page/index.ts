// "@toolmark/mcp/page": pairs the page with the desktop MCP relay (`npx @toolmark/mcp`). Browser-safe:
// it stands on @toolmark/core's public consumer API and the pairing protocol, never on Node.

import type { ToolmarkConsumer } from '@toolmark/core'
import { toJsonSafeResult } from '@toolmark/core/adapter'
import {
  PAIRING_PROTOCOL,
  type PageToRelay,
  type PairingCallMessage,
  type RelayToPage,
} from '../protocol/messages.ts'
import { readFrame } from '../protocol/read.ts'
import { toPageProblem } from '../protocol/to-page.ts'

/** Where the pairing stands, for the page's "Pair with a desktop MCP client" UI. */
export type PairingStatus =
  | { state: 'connecting' }
  /** Show `code`; the user confirms it in the desktop MCP client before `expiresAt` (epoch ms). */
  | { state: 'pairing'; code: string; expiresAt: number }
  | { state: 'paired'; tab: string }
  /** Closed by the relay, the network or disposal; `reason` says why when known. */
  | { state: 'closed'; reason?: string }

/** What `mcpPairing` needs. */
export interface McpPairingOptions {
  /** The relay's WebSocket on this machine: `ws://127.0.0.1:<port>`, `localhost` or `[::1]` (anything else throws). */
  url: string
  /** Called on every status change (also once with `connecting`). */
  onStatus?: (status: PairingStatus) => void
  /**
   * Where the resume token is handed from this page load to the next one in the same tab (default
   * `sessionStorage`: per tab, survives a reload, gone with the tab). The token is written there only
   * as the page is hidden (`pagehide`: a reload or a navigation) and taken out as soon as the next
   * page load reads it; in between it lives in memory. So a window this tab opens, which gets a copy
   * of `sessionStorage`, never holds it. Pass `null` to never resume.
   */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null
  /** The WebSocket constructor (default the global one). */
  WebSocket?: new (
    url: string,
  ) => WebSocket
}

/**
 * The `sessionStorage` key of a tab's resume token: present only from the page's `pagehide` until
 * the next page load of the tab reads it, which may then re-pair without a code.
 */
export const RESUME_STORAGE_KEY = 'toolmark:mcp:resume'
const STORAGE_KEY = RESUME_STORAGE_KEY

/**
 * Connects the page to the `@toolmark/mcp` relay on loopback and, once the user has confirmed the
 * pairing code in the desktop MCP client, publishes the tools visible to caller `mcp` and runs the
 * client's calls as caller `mcp` (inline confirmation in the page, `ToolResult` answers). A tab the
 * user allowed to resume re-pairs after a reload without a new code. Disposal closes the socket and
 * cancels running calls.
 */
export function mcpPairing(options: McpPairingOptions): ToolmarkConsumer {
  // The relay runs on this machine: a page never pairs with a remote server, whatever built the URL.
  if (
    typeof options?.url !== 'string' ||
    !/^wss?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(options.url)
  )
    throw new TypeError('mcpPairing() needs a loopback { url: "ws://127.0.0.1:<port>" }')
  return (host) => {
    const Socket = options.WebSocket ?? (typeof WebSocket === 'undefined' ? undefined : WebSocket)
    if (!Socket) return undefined
    const storage =
      options.storage === null
        ? undefined
        : (options.storage ?? (typeof sessionStorage === 'undefined' ? undefined : sessionStorage))
    const status = (s: PairingStatus): void => {
      // Inspectors (the devtools) see where the pairing stands, never the code the user confirms.
      const { code: _code, ...shown } = s as PairingStatus & { code?: string }
      host.status('mcp', shown)
      try {
        options.onStatus?.(s)
      } catch (err) {
        console.error('[toolmark] onStatus threw', err)
      }
    }
    const inflight = new Map<string, AbortController>()
    let offWatch: (() => void) | undefined
    let closed = false

    status({ state: 'connecting' })
    let ws: WebSocket
    try {
      ws = new Socket(options.url)
    } catch (err) {
      host.report('transport_failed', 'Cannot open the MCP relay WebSocket', { cause: err })
      status({ state: 'closed', reason: 'cannot connect' })
      return undefined
    }
    const send = (message: PageToRelay): void => {
      if (closed || ws.readyState !== 1) return
      try {
        ws.send(JSON.stringify(message))
      } catch (err) {
        host.report('transport_failed', 'The MCP relay WebSocket failed to send', { cause: err })
      }
    }
    // In a page, the token lives in memory and goes to storage only as the page hides (see `storage`):
    // a window opened meanwhile copies sessionStorage without it. Without page events, it is stored at once.
    const page =
      storage && typeof addEventListener === 'function' && typeof removeEventListener === 'function'
        ? globalThis
        : undefined
    let token = readStorage(storage)
    /** Leaves the token where the next page load of this tab reads it (or nothing). */
    const handOn = (): void => (token ? writeStorage(storage, token) : removeStorage(storage))
    const setToken = (value: string | undefined): void => {
      token = value
      if (!page) handOn()
    }
    const onPageShow = (event: Event): void => {
      // Back from the back/forward cache: this page load lives again and keeps its token to itself.
      if ((event as PageTransitionEvent).persisted) removeStorage(storage)
    }
    if (page) {
      removeStorage(storage)
      page.addEventListener('pagehide', handOn)
      page.addEventListener('pageshow', onPageShow)
    }
    const resume = token
    ws.addEventListener('open', () =>
      send(resume ? { type: 'hello', v: PAIRING_PROTOCOL, resume } : { type: 'hello', v: PAIRING_PROTOCOL }),
    )
    ws.addEventListener('close', (event) => {
      finish(event.reason || undefined)
    })
    ws.addEventListener('error', () => {
      // A close event follows with the reason.
    })
    ws.addEventListener('message', (event) => {
      if (closed) return
      const msg = parse(event.data)
      if (typeof msg === 'string') {
        // Dropped: nothing runs, and the reason (never the message's content) goes to the error event.
        return host.report('invalid_message', `The MCP relay sent a malformed message: ${msg}`)
      }
      switch (msg.type) {
        case 'pairing':
          setToken(undefined) // a code means the relay did not resume with the token presented (if any)
          return status({ state: 'pairing', code: msg.code, expiresAt: msg.expiresAt })
        case 'paired':
          setToken(msg.resume)
          status({ state: 'paired', tab: msg.tab })
          offWatch ??= host.watch({ caller: 'mcp', detail: 'full' }, ({ rev, tools }) =>
            send({ type: 'manifest', rev, tools }),
          )
          return
        case 'call':
          return call(msg)
        case 'cancel':
          inflight.get(msg.id)?.abort()
          return
        case 'error':
          // The relay refused this page (expired code, too many wrong codes): start afresh next time.
          setToken(undefined)
          return finish(msg.message)
      }
    })

    const call = (msg: PairingCallMessage): void => {
      if (offWatch === undefined || inflight.has(msg.id)) return
      const token = new AbortController()
      inflight.set(msg.id, token)
      host
        .run(msg.tool, msg.input, {
          caller: 'mcp',
          signal: token.signal,
          ...(msg.rev === undefined ? {} : { rev: msg.rev }),
          ...(msg.meta === undefined ? {} : { meta: msg.meta }),
        })
        .then((result) => {
          inflight.delete(msg.id)
          const safe = toJsonSafeResult(result, (err) =>
            host.report('transport_failed', `The result of "${msg.tool}" was not serializable`, {
              tool: msg.tool,
              cause: err,
            }),
          )
          send({ type: 'result', id: msg.id, result: safe })
        })
    }

    const finish = (reason?: string): void => {
      if (closed) return
      closed = true
      offWatch?.()
      for (const token of inflight.values()) token.abort()
      inflight.clear()
      status(reason === undefined ? { state: 'closed' } : { state: 'closed', reason })
    }

    return () => {
      // Disposed: the pairing ends with this page load, a reload pairs again with a code.
      page?.removeEventListener('pagehide', handOn)
      page?.removeEventListener('pageshow', onPageShow)
      setToken(undefined)
      finish('disposed')
      host.status('mcp', undefined)
      try {
        ws.close(1000, 'disposed')
      } catch {
        // Already closed.
      }
    }
  }
}

/** A relay message, or why it is not one (bounded: the relay is loopback, yet still checked). */
function parse(data: unknown): RelayToPage | string {
  const frame = readFrame(data)
  if (!frame.ok) return frame.reason
  return toPageProblem(frame.value) ?? (frame.value as RelayToPage)
}

type Store = McpPairingOptions['storage']
function readStorage(s: Store): string | undefined {
  try {
    return s?.getItem(STORAGE_KEY) ?? undefined
  } catch {
    return undefined
  }
}
function writeStorage(s: Store, value: string): void {
  try {
    s?.setItem(STORAGE_KEY, value)
  } catch {
    // Storage full or blocked: the tab pairs again with a code after a reload.
  }
}
function removeStorage(s: Store): void {
  try {
    s?.removeItem(STORAGE_KEY)
  } catch {
    // Blocked storage: nothing was kept.
  }
}
