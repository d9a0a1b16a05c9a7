import { randomUUID } from 'node:crypto'
import type { ToolResult } from '@toolmark/core'
import { type AgentToPageMessage, PROTOCOL_VERSION } from '@toolmark/protocol'
import type WebSocket from 'ws'
import { type FakeTool, fakeTool } from '../../../../offline-agent/src/__tests__/fake-tool.ts'
import type { Browser } from './http-client.ts'
import { HttpLink, openSocket, type PageLink, type Transport, WebSocketLink } from './page-links.ts'

export { type FakeTool, fakeTool }

/**
 * A page over a real `ws` socket (or the HTTP transport's stream and POSTs): it sends protocol messages, records what the server sends,
 * and (with `autoAnswer`) answers describes and calls from its tool list. Consequential and
 * destructive tools answer `needs_confirmation`; `approve`/`reject` send the `confirmed`.
 */
export class FakePage {
  readonly clientId: string
  readonly inbox: AgentToPageMessage[] = []
  readonly pending = new Map<string, { tool: FakeTool; input: Record<string, unknown> }>()
  readonly calls: Array<{ tool: string; input: Record<string, unknown>; rev?: number }> = []
  autoAnswer = true
  rev = 1
  #waiters: Array<{ match: (m: AgentToPageMessage) => boolean; resolve: (m: AgentToPageMessage) => void }> =
    []

  private constructor(
    readonly link: PageLink,
    public tools: FakeTool[],
    readonly browser: Browser,
    clientId: string = randomUUID(),
  ) {
    this.clientId = clientId
    link.onMessage((data) => {
      const message = JSON.parse(data) as AgentToPageMessage
      if (message.clientId !== this.clientId) return // rule 1: other pages' messages are ignored
      this.inbox.push(message)
      const waiter = this.#waiters.find((w) => w.match(message))
      if (waiter) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1)
        waiter.resolve(message)
      }
      if (this.autoAnswer) this.#answer(message)
    })
  }

  static async open(
    url: string,
    browser: Browser,
    conversation: string,
    tools: FakeTool[],
    options: {
      manifest?: boolean
      transport?: Transport
      /** The page load this connection carries (default a new one): a reconnect of the same page keeps it. */
      clientId?: string
      /** HTTP transport: resume the stream after this event id (`Last-Event-ID`), as an `EventSource` does. */
      lastEventId?: string
    } = {},
  ): Promise<FakePage> {
    let link: PageLink
    if (options.transport === 'http') {
      const opened = await HttpLink.open(url, {
        cookie: browser.cookie,
        conversation,
        ...(options.lastEventId ? { lastEventId: options.lastEventId } : {}),
      })
      if (typeof opened === 'number') throw new Error(`the event stream was refused: HTTP ${opened}`)
      link = opened
    } else {
      link = new WebSocketLink((await openSocket(url, { cookie: browser.cookie, conversation })).ws)
    }
    const page = new FakePage(link, tools, browser, options.clientId)
    if (options.manifest !== false) await page.sendManifest()
    return page
  }

  /** Sends a manifest and waits until the server has processed it (a round trip). */
  async sendManifest(tools = this.tools): Promise<void> {
    this.tools = tools
    this.send({
      protocol: PROTOCOL_VERSION,
      type: 'manifest',
      clientId: this.clientId,
      rev: this.rev,
      tools: tools.map(({ name, llmName, title, description, hints, sensitivePaths }) => ({
        name,
        llmName,
        ...(title === undefined ? {} : { title }),
        description,
        hints,
        ...(sensitivePaths ? { sensitivePaths } : {}),
      })),
    })
    await this.flush()
  }

  /** The page's WebSocket (a page over the WebSocket transport only). */
  get ws(): WebSocket {
    if (!(this.link instanceof WebSocketLink)) throw new Error('this page is not on a WebSocket')
    return this.link.ws
  }

  send(message: unknown): void {
    this.link.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  /**
   * Resolves once the server has handled everything sent so far: the connection's round trip (a ping/pong,
   * or the POSTs' answers) proves it reached the server, then the harness waits until every instance has
   * handled it and what it caused between instances.
   */
  async flush(): Promise<void> {
    await this.link.flush()
    await this.browser.settled()
  }

  /** The next message (already received or future) that matches. */
  next(match: (m: AgentToPageMessage) => boolean = () => true): Promise<AgentToPageMessage> {
    return new Promise((resolve) => this.#waiters.push({ match, resolve }))
  }

  result(id: string, result: ToolResult, clientId = this.clientId): void {
    this.send({ protocol: PROTOCOL_VERSION, type: 'result', clientId, id, result })
  }

  confirmed(confirmId: string, result: ToolResult, clientId = this.clientId): void {
    this.send({ protocol: PROTOCOL_VERSION, type: 'confirmed', clientId, confirmId, result })
  }

  /** Approves the pending confirmation (runs the tool) and sends `confirmed`. */
  async approve(confirmId: string): Promise<ToolResult> {
    const entry = this.pending.get(confirmId)
    if (!entry) throw new Error(`no pending confirmation ${confirmId}`)
    this.pending.delete(confirmId)
    const result = entry.tool.run(entry.input)
    this.confirmed(confirmId, result)
    await this.flush()
    return result
  }

  async reject(confirmId: string): Promise<void> {
    this.pending.delete(confirmId)
    this.confirmed(confirmId, { status: 'cancelled', by: 'operator' })
    await this.flush()
  }

  /** Closes the connection; over a WebSocket, resolves once the server closed its side too and handled that. */
  async close(): Promise<void> {
    await this.link.close()
    if (this.link instanceof WebSocketLink) await this.browser.gone(this.clientId)
  }

  /** The call and describe ids answered so far: like the real page, each is answered once. */
  readonly #answered = new Set<string>()

  #answer(message: AgentToPageMessage): void {
    if (message.type === 'cancel') return
    if (this.#answered.has(message.id)) return
    this.#answered.add(message.id)
    const tool = this.tools.find((t) => t.name === message.tool)
    if (!tool) {
      this.result(message.id, {
        status: 'refused',
        code: 'unknown_tool',
        message: 'Unknown tool',
        rev: this.rev,
      })
      return
    }
    if (message.type === 'describe') {
      const { run: _run, ...entry } = tool
      this.result(message.id, { status: 'ok', data: entry })
      return
    }
    this.calls.push({
      tool: message.tool,
      input: message.input,
      ...(message.rev === undefined ? {} : { rev: message.rev }),
    })
    if (tool.hints.consequential || tool.hints.destructive) {
      const confirmId = randomUUID()
      this.pending.set(confirmId, { tool, input: message.input })
      const title = tool.title ?? tool.name
      const summary = tool.summarize
        ? tool.summarize(message.input)
        : typeof message.input.name === 'string'
          ? `${title} "${message.input.name}"`
          : title
      this.result(message.id, { status: 'needs_confirmation', confirmId, summary, changes: [] })
      return
    }
    this.result(message.id, tool.run(message.input))
  }
}
