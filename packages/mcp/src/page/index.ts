// "@toolmark/mcp/page": pairs the page with the desktop MCP relay (`npx @toolmark/mcp`). Browser-safe:
// it stands on @toolmark/core's public consumer API and the pairing protocol, never on Node.

import type { CallMeta, ConfirmOutcome, ConfirmRequest, ContextEntry, ToolmarkConsumer } from '@toolmark/core'
import { toJsonSafeResult } from '@toolmark/core/adapter'
import {
  MAX_PAIRING_CONTEXT,
  PAIRING_PROTOCOL,
  type PageToRelay,
  type PairingCallMessage,
  type PairingClient,
  type PairingConfirmedMessage,
  type PairingConfirmMessage,
  type PairingContextEntry,
  type PairingPrompt,
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
  /**
   * Whether a call's confirmation may be asked in the MCP client itself (when the client declared
   * form elicitation or MCP Apps: a form, or the relay's confirmation card), per tool and per client. Default `true`; `false` (or a function answering
   * false) keeps the in-page card for that tool or client. The page's expiry, single use, revision
   * check and edit validation apply either way.
   */
  confirmInClient?: boolean | ((about: { tool: string; client: PairingClient | undefined }) => boolean)
  /**
   * The page's title the client lists for this tab (`toolmark_tabs`), read with every manifest and
   * cut to 256 characters. Default `document.title`.
   */
  title?: () => string
  /**
   * Prompts the MCP client offers the user (`prompts/list`, `prompts/get`), sent once paired. `text`
   * is a template: `{{arg}}` is that argument's value and `{{context.<name>}}` that readable context
   * entry's masked value as JSON. The relay checks them (names, at most 64, text at most 16384
   * characters) and refuses the page when one breaks a rule: the status closes with the rule.
   */
  prompts?: readonly McpPrompt[]
}

/** A prompt the page offers the MCP client (see `McpPairingOptions.prompts`). */
export type McpPrompt = PairingPrompt

/** Least time between two progress messages of one relayed call, in ms. */
const PROGRESS_MS = 250

/** Who asked, in the meta of every call the pairing runs (observers, devtools and audit see it). */
export interface McpCallMeta {
  /** The tab id the call came through (`t1`, …): the pairing. */
  tab: string
  /** The MCP client's declared name and version: a claim, never an authentication. */
  client?: PairingClient
}

/** The confirm request `mcpPairing(...).confirm(fallback)` hands the in-page card for an MCP call. */
export interface McpConfirmRequest extends ConfirmRequest {
  /**
   * Present for calls that came through the pairing: who asked. `summary` then starts with the
   * client's declared name ("Claude Desktop wants to: …").
   */
  mcp?: McpCallMeta
}

/** The in-page confirmation (the app's card) used when the client does not confirm itself. */
export type McpConfirmFallback = (request: McpConfirmRequest) => ConfirmOutcome | Promise<ConfirmOutcome>

/** `mcpPairing(...)`: the consumer to `tm.use`, and the confirm handler that routes MCP confirmations. */
export interface McpPairing extends ToolmarkConsumer {
  /**
   * The registry's confirm handler (`createToolmark({ confirm })`): a confirmation of an MCP call is
   * asked in the MCP client when it can (`elicitation/create`, or the MCP Apps card) and
   * `confirmInClient` allows it, else
   * `fallback` (the in-page card) gets it with who asked. Other callers go to `fallback` unchanged.
   */
  confirm(fallback: McpConfirmFallback): (request: ConfirmRequest) => Promise<ConfirmOutcome>
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
export function mcpPairing(options: McpPairingOptions): McpPairing {
  // The relay runs on this machine: a page never pairs with a remote server, whatever built the URL.
  if (
    typeof options?.url !== 'string' ||
    !/^wss?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(options.url)
  )
    throw new TypeError('mcpPairing() needs a loopback { url: "ws://127.0.0.1:<port>" }')
  /** The attached pairing's confirmation routes (one attachment at a time). */
  let live: Routes | undefined
  const consumer: ToolmarkConsumer = (host) => {
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
    let offContext: (() => void) | undefined
    let closed = false
    /** The tab id the relay gave this page once paired. */
    let tab: string | undefined
    const routes = new Routes((message) => send(message))
    live = routes
    // Which confirmation belongs to which relayed call: the registry announces each with its call's meta.
    /** Relayed call id → when its last progress went out (at most one per PROGRESS_MS; the rest dropped). */
    const progressAt = new Map<string, number>()
    const offObserve = host.observe({
      confirm: (event, meta) => {
        if (event.phase === 'requested') {
          const call = meta && routes.calls.get(meta)
          if (call) routes.byConfirm.set(event.request.confirmId, call)
        } else routes.settled(event.confirmId)
      },
      // A relayed call's progress goes to the relay, for the client that asked for it.
      progress: ({ fraction, message }, meta) => {
        const id = meta && routes.calls.get(meta)?.msg.id
        const now = Date.now()
        if (!id || !inflight.has(id) || now - (progressAt.get(id) ?? -PROGRESS_MS) < PROGRESS_MS) return
        progressAt.set(id, now)
        const update: PageToRelay = { type: 'progress', id }
        if (fraction !== undefined) update.fraction = fraction
        if (message !== undefined) update.message = message
        send(update)
      },
    })

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
          tab = msg.tab
          status({ state: 'paired', tab: msg.tab })
          offWatch ??= host.watch({ caller: 'mcp', detail: 'full' }, ({ rev, tools }) => {
            const title = pageTitle(options.title)
            send(
              title === undefined
                ? { type: 'manifest', rev, tools }
                : { type: 'manifest', rev, tools, title },
            )
          })
          if (offContext === undefined) {
            if (options.prompts) send({ type: 'prompts', prompts: [...options.prompts] })
            // Readable context as MCP resources: sent again only when what caller mcp sees changed.
            offContext = host.watchContext({ caller: 'mcp' }, ({ rev, entries }) =>
              send({
                type: 'context',
                rev,
                entries: entries.slice(0, MAX_PAIRING_CONTEXT).map(contextEntry),
              }),
            )
          }
          return
        case 'call':
          return call(msg)
        case 'cancel':
          inflight.get(msg.id)?.abort()
          return
        case 'confirmed':
          return routes.answer(msg)
        case 'error':
          // The relay refused this page (expired code, too many wrong codes): start afresh next time.
          setToken(undefined)
          return finish(msg.message)
      }
    })

    const call = (msg: PairingCallMessage): void => {
      if (offWatch === undefined || tab === undefined || inflight.has(msg.id)) return
      const token = new AbortController()
      inflight.set(msg.id, token)
      const mcp: McpCallMeta = msg.client ? { tab, client: msg.client } : { tab }
      const meta: CallMeta = { ...msg.meta, mcp }
      routes.calls.set(meta, { msg, mcp })
      host
        .run(msg.tool, msg.input, {
          caller: 'mcp',
          signal: token.signal,
          ...(msg.rev === undefined ? {} : { rev: msg.rev }),
          meta,
        })
        .then((result) => {
          inflight.delete(msg.id)
          progressAt.delete(msg.id)
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
      offContext?.()
      offObserve()
      routes.close()
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
      if (live === routes) live = undefined
      try {
        ws.close(1000, 'disposed')
      } catch {
        // Already closed.
      }
    }
  }
  const inClient = options.confirmInClient ?? true
  return Object.assign(consumer, {
    confirm:
      (fallback: McpConfirmFallback) =>
      async (request: ConfirmRequest): Promise<ConfirmOutcome> => {
        const call = request.caller === 'mcp' ? live?.byConfirm.get(request.confirmId) : undefined
        if (!call || !live) return fallback(request)
        const { client } = call.mcp
        const shown: McpConfirmRequest = {
          ...request,
          summary: client ? `${client.name} wants to: ${request.summary}` : request.summary,
          mcp: call.mcp,
        }
        const allowed = typeof inClient === 'function' ? inClient({ tool: request.tool, client }) : inClient
        if (call.msg.elicit !== true || allowed !== true) return fallback(shown)
        const answer = await live.ask(request, call.msg.id)
        // The client could not ask: the in-page card does.
        if (answer.reason === 'unavailable') return fallback(shown)
        if (!answer.approved) return { approved: false, reason: answer.reason ?? 'declined' }
        if (answer.input === undefined) return { approved: true }
        // The edited fields over the shown input: the registry restores redacted values and validates.
        return { approved: true, input: { ...(request.input as object), ...answer.input } }
      },
  })
}

/** A relayed call: its message and who asked. */
interface RoutedCall {
  msg: PairingCallMessage
  mcp: McpCallMeta
}

/**
 * The confirmations of relayed calls: which call each belongs to, and the ones the MCP client is
 * asked for. Each answer is taken once; an unknown or second one is ignored.
 */
class Routes {
  /** The meta of each relayed call in flight → the call (the registry hands observers that meta). */
  readonly calls = new WeakMap<CallMeta, RoutedCall>()
  /** Open confirmation id → its relayed call. */
  readonly byConfirm = new Map<string, RoutedCall>()
  readonly #waiting = new Map<string, (answer: PairingConfirmedMessage) => void>()

  constructor(private readonly send: (message: PageToRelay) => void) {}

  /** Sends the card's content to the relay and waits for the client's answer (or the request's end). */
  ask(request: ConfirmRequest, callId: string): Promise<PairingConfirmedMessage> {
    const { confirmId } = request
    return new Promise((resolve) => {
      const done = (answer: PairingConfirmedMessage): void => {
        request.signal.removeEventListener('abort', onAbort)
        if (this.#waiting.get(confirmId) === done) this.#waiting.delete(confirmId)
        resolve(answer)
      }
      const onAbort = (): void => done({ type: 'confirmed', confirmId, approved: false, reason: 'cancelled' })
      if (request.signal.aborted) return onAbort()
      request.signal.addEventListener('abort', onAbort, { once: true })
      this.#waiting.set(confirmId, done)
      const message: PairingConfirmMessage = {
        type: 'confirm',
        id: callId,
        confirmId,
        tool: request.tool,
        summary: request.summary,
        destructive: request.destructive,
        changes: request.changes,
        expiresAt: request.expiresAt,
      }
      if (request.title !== undefined) message.title = request.title
      if (request.target !== undefined) message.target = request.target
      if (request.undoable) message.undoable = true
      const fields = editable(request.input)
      if (fields) message.fields = fields
      if (request.issues) message.issues = request.issues
      this.send(message)
    })
  }

  /** The relay's `confirmed`: answers the waiting confirmation once. */
  answer(msg: PairingConfirmedMessage): void {
    this.#waiting.get(msg.confirmId)?.(msg)
  }

  /** The registry settled a confirmation: it routes nothing any more. */
  settled(confirmId: string): void {
    this.byConfirm.delete(confirmId)
  }

  /** The pairing closed: every waiting confirmation ends as cancelled. */
  close(): void {
    for (const [confirmId, done] of [...this.#waiting])
      done({ type: 'confirmed', confirmId, approved: false, reason: 'cancelled' })
    this.byConfirm.clear()
  }
}

/**
 * The input's top-level strings, finite numbers and booleans the client's form may edit: never a
 * redacted one, at most 64, names as the pairing protocol allows. Undefined when there are none.
 */
function editable(input: unknown): PairingConfirmMessage['fields'] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined
  const fields: NonNullable<PairingConfirmMessage['fields']> = {}
  let n = 0
  for (const [name, value] of Object.entries(input)) {
    if (n >= 64 || !/^[A-Za-z0-9_.-]{1,64}$/.test(name) || value === '[redacted]') continue
    if (
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      fields[name] = value
      n++
    }
  }
  return n > 0 ? fields : undefined
}

/** A relay message, or why it is not one (bounded: the relay is loopback, yet still checked). */
function parse(data: unknown): RelayToPage | string {
  const frame = readFrame(data)
  if (!frame.ok) return frame.reason
  return toPageProblem(frame.value) ?? (frame.value as RelayToPage)
}

/** A context entry as the pairing protocol bounds it (title 256, description 4096 characters). */
function contextEntry(entry: ContextEntry): PairingContextEntry {
  const out: PairingContextEntry = {
    name: entry.name,
    description: [...entry.description].slice(0, 4096).join(''),
    value: entry.value,
    rev: entry.rev,
  }
  if (entry.title !== undefined) out.title = [...entry.title].slice(0, 256).join('')
  return out
}

/** The page's title for the client, at most 256 characters; undefined when there is none or it throws. */
function pageTitle(read: McpPairingOptions['title']): string | undefined {
  try {
    const title = read ? read() : typeof document === 'undefined' ? undefined : document.title
    return typeof title === 'string' && title !== '' ? [...title].slice(0, 256).join('') : undefined
  } catch {
    return undefined
  }
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
