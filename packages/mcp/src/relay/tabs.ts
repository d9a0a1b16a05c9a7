import { randomUUID } from 'node:crypto'
import type { CallToolResult } from '@modelcontextprotocol/server'
import type { ToolManifest } from '@toolmark/core'
import { llmName } from '@toolmark/core/adapter'
import type { WebSocket } from 'ws'
import type {
  PairingClient,
  PairingConfirmedMessage,
  PairingConfirmMessage,
  PairingManifestMessage,
  PairingProgressMessage,
  PairingResultMessage,
  RelayToPage,
} from '../protocol/messages.ts'
import { errorText, mcpResult, type OutputCheck, outputCheck } from './results.ts'

const MAX_TOOLS_PER_TAB = 500

/** Asks the MCP client to confirm one of its calls: resolves the answer for the page. */
export type Asker = (msg: PairingConfirmMessage, signal: AbortSignal) => Promise<PairingConfirmedMessage>

/** Who makes a call: the client's declared name and version, and how it confirms in its own UI (if it can). */
export interface Caller {
  client: PairingClient | undefined
  ask?: Asker | undefined
  /** Passes the page's progress of the call on to the client (when its request asked for progress). */
  progress?: ((update: { fraction?: number; message?: string }) => void) | undefined
}

/** One page socket: its tab id, its pairing state, its tools and its calls in flight. */
export interface Tab {
  readonly id: string
  readonly origin: string
  readonly ws: WebSocket
  paired: boolean
  code?: string
  codeExpiresAt?: number
  codeTimer?: NodeJS.Timeout
  rev: number
  /** The page's title, as its last manifest said. */
  title?: string
  /** MCP tool name → page tool. */
  tools: Map<string, ToolManifest>
  /** In-flight calls: how to answer each, whether its tool's results are untrusted, its abort signal. */
  calls: Map<
    string,
    {
      answer: (result: CallToolResult) => void
      untrusted: boolean
      /** The check of `ok` data against the tool's listed output schema, when it has one. */
      output: OutputCheck | undefined
      signal: AbortSignal
      /** Asks the client that made the call to confirm, when it can. */
      ask: Asker | undefined
      /** The client's progress notifications for this call, when it asked for them. */
      progress: Caller['progress']
    }
  >
  /** Confirmations the client is being asked for (their ids): each is asked once at a time. */
  asking: Set<string>
}

/**
 * The open tabs and what they offer: tab ids, the tool names listed for them (`t1__search`), the
 * calls relayed to them and their answers, and which paired tabs are gone. `onChange` runs whenever
 * the list of paired tools changes.
 */
export class Tabs {
  readonly all = new Set<Tab>()
  /** Ids of paired tabs that closed: a call to one of their tools answers a clear error. */
  readonly gone = new Set<string>()
  #next = 1

  constructor(
    private readonly options: {
      callTimeoutMs: number
      onChange: () => void
    },
  ) {}

  /** A fresh tab id (`t1`, `t2`, … in order). */
  nextId(): string {
    return `t${this.#next++}`
  }

  /** Adds a tab, not paired yet, for `ws`. */
  add(id: string, origin: string, ws: WebSocket): Tab {
    const tab: Tab = {
      id,
      origin,
      ws,
      paired: false,
      rev: 0,
      tools: new Map(),
      calls: new Map(),
      asking: new Set(),
    }
    this.all.add(tab)
    return tab
  }

  /** Sends `message` to the tab's page if its socket is open. */
  send(tab: Tab, message: RelayToPage): void {
    if (tab.ws.readyState === tab.ws.OPEN) tab.ws.send(JSON.stringify(message))
  }

  /** Announces the list of paired tools changed. */
  changed(): void {
    this.options.onChange()
  }

  /** The paired tab and page tool listed as `name`, if any. */
  find(name: string): { tab: Tab; tool: ToolManifest } | undefined {
    for (const tab of this.all) {
      const tool = tab.paired ? tab.tools.get(name) : undefined
      if (tool) return { tab, tool }
    }
    return undefined
  }

  /** The paired tabs, in pairing order. */
  paired(): Tab[] {
    return [...this.all].filter((t) => t.paired).sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)))
  }

  /** The paired tabs offering a tool listed as `<tab>__<name>`, for a request that named no tab. */
  offering(name: string): Array<{ tab: Tab; listed: string }> {
    const out: Array<{ tab: Tab; listed: string }> = []
    for (const tab of this.paired())
      if (tab.tools.has(`${tab.id}__${name}`)) out.push({ tab, listed: `${tab.id}__${name}` })
    return out
  }

  /** The page's new manifest: its tools (at most 500) under `<tab>__` names. */
  manifest(tab: Tab, msg: PairingManifestMessage): void {
    tab.rev = msg.rev
    if (msg.title === undefined) delete tab.title
    else tab.title = msg.title
    tab.tools = new Map(msg.tools.slice(0, MAX_TOOLS_PER_TAB).map((t) => [llmName(`${tab.id}.${t.name}`), t]))
    this.changed()
  }

  /** The page's answer to a call in flight (an unknown id is ignored). */
  result(tab: Tab, msg: PairingResultMessage): void {
    const call = tab.calls.get(msg.id)
    call?.answer(mcpResult(msg.result, call.untrusted, call.output))
  }

  /** The page's progress of a call in flight, passed on to the client that asked for it (else ignored). */
  progress(tab: Tab, msg: PairingProgressMessage): void {
    tab.calls.get(msg.id)?.progress?.(msg)
  }

  /**
   * The page asks the client to confirm a call of its own still in flight: once per confirmation at
   * a time; the answer goes back as `confirmed`. Anything else is ignored.
   */
  confirm(tab: Tab, msg: PairingConfirmMessage): void {
    const call = tab.calls.get(msg.id)
    if (!call?.ask || tab.asking.has(msg.confirmId)) return
    tab.asking.add(msg.confirmId)
    void call.ask(msg, call.signal).then((answer) => {
      tab.asking.delete(msg.confirmId)
      this.send(tab, answer)
    })
  }

  /**
   * Relays one call to the page and resolves its answer as MCP content. The client's abort and the
   * call timeout send the page a cancel and answer an error; so does the page closing first.
   */
  call(
    tab: Tab,
    tool: ToolManifest,
    args: Record<string, unknown>,
    meta: Record<string, unknown> | undefined,
    signal: AbortSignal,
    who: Caller,
  ): Promise<CallToolResult> {
    const { callTimeoutMs } = this.options
    return new Promise<CallToolResult>((resolve) => {
      const id = randomUUID()
      const trace: { traceparent?: string; tracestate?: string } = {}
      if (typeof meta?.traceparent === 'string') trace.traceparent = meta.traceparent
      if (typeof meta?.tracestate === 'string') trace.tracestate = meta.tracestate
      let settled = false
      const done = (result: CallToolResult): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        tab.calls.delete(id)
        resolve(result)
      }
      const onAbort = (): void => {
        this.send(tab, { type: 'cancel', id })
        done(errorText('Cancelled by the client.'))
      }
      const timer = setTimeout(() => {
        this.send(tab, { type: 'cancel', id })
        done(errorText(`The page did not answer within ${callTimeoutMs} ms.`))
      }, callTimeoutMs)
      tab.calls.set(id, {
        answer: done,
        untrusted: tool.hints?.untrustedContent === true,
        output: outputCheck(tool),
        signal,
        ask: who.ask,
        progress: who.progress,
      })
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.send(tab, {
        type: 'call',
        id,
        tool: tool.name,
        input: args,
        rev: tab.rev,
        ...(Object.keys(trace).length > 0 ? { meta: trace } : {}),
        ...(who.client ? { client: who.client } : {}),
        ...(who.ask ? { elicit: true as const } : {}),
      })
    })
  }

  /** The tab's socket closed: its calls answer an error, and a paired tab's tools leave the list. */
  closed(tab: Tab, log: (line: string) => void): void {
    this.all.delete(tab)
    clearTimeout(tab.codeTimer)
    for (const call of [...tab.calls.values()])
      call.answer(errorText(`The page of tab ${tab.id} closed before answering.`))
    if (tab.paired && ![...this.all].some((other) => other.id === tab.id)) {
      this.gone.add(tab.id)
      log(`tab ${tab.id} closed`)
      this.changed()
    }
  }
}
