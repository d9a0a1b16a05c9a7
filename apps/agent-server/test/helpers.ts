import { randomUUID } from 'node:crypto'
import type { ToolResult } from '@toolmark/core'
import { type AgentToPageMessage, PROTOCOL_VERSION } from '@toolmark/core/protocol'
import type { EventSourceMessage } from 'eventsource-parser'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { type FakeTool, fakeTool } from '../../../packages/offline-agent/test/fake-tool.ts'
import type { Provider, ProviderEvent, ProviderRequest } from '../src/agent/types.ts'
import { type Config, loadConfig } from '../src/config.ts'
import type { Rejection } from '../src/relay/relay.ts'
import { type RunningServer, startServer } from '../src/server.ts'
import type { Clock } from '../src/shared/clock.ts'

export { type FakeTool, fakeTool }

/** A started server on 127.0.0.1:0 with an in-memory store, plus what it logged and rejected. */
export interface TestServer {
  server: RunningServer
  rejections: Rejection[]
  logs: string[]
  /** A new browser (its own cookie jar, so its own user) with a session (it started a conversation). */
  browser(): Promise<Browser>
}

/** What a test server is started with: a provider, a manual clock, configuration overrides. */
export interface TestServerOptions {
  provider?: Provider
  clock?: Clock
  config?: Partial<Config>
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const config: Config = {
    ...loadConfig({ DATA_FILE: ':memory:', PORT: '0', PROVIDER: 'embedded', STATIC_DIR: '/nonexistent' }),
    ...options.config,
  }
  const logs: string[] = []
  const server = await startServer({
    config,
    log: (line) => logs.push(line),
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  })
  const rejections: Rejection[] = []
  server.relay.on('rejected', (r) => rejections.push(r))
  return {
    server,
    rejections,
    logs,
    async browser() {
      const b = new Browser(server.url)
      await b.createConversation() // sessions are created lazily, by the first conversation
      return b
    },
  }
}

/**
 * A file's `server()`: starts a test server with `defaults` (configuration merged with the
 * call's) and closes it when the test that started it finishes.
 */
export function testServers(
  defaults: TestServerOptions = {},
): (options?: TestServerOptions) => Promise<TestServer> {
  return async (options = {}) => {
    const t = await startTestServer({
      ...defaults,
      ...options,
      config: { ...defaults.config, ...options.config },
    })
    onTestFinished(() => t.server.close())
    return t
  }
}

/** A test server with no defaults, closed when the test that started it finishes. */
export const testServer = testServers()

/** The events of a `text/event-stream` response body (parsed by `eventsource-parser`; comments skipped). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  // The cast bridges lib.dom's and Node's stream typings; at runtime it is Node's own TextDecoderStream.
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    reader.releaseLock()
  }
}

/** A cookie-keeping HTTP client standing in for one browser. */
export class Browser {
  cookie = ''
  constructor(readonly base: string) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookie) headers.set('cookie', this.cookie)
    const response = await fetch(this.base + path, { ...init, headers })
    const set = response.headers.get('set-cookie')
    if (set) this.cookie = set.split(';')[0]!
    return response
  }

  async createConversation(): Promise<string> {
    const response = await this.fetch('/api/conversations', { method: 'POST' })
    return ((await response.json()) as { id: string }).id
  }

  async say(conversation: string, text: string): Promise<Response> {
    return this.fetch(`/api/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    })
  }

  async messages(conversation: string): Promise<Array<{ role: string; text: string; tool?: string }>> {
    const response = await this.fetch(`/api/conversations/${conversation}`)
    return ((await response.json()) as { messages: Array<{ role: string; text: string; tool?: string }> })
      .messages
  }
}

/** Opens a socket like the page does; resolves once open, or with the close code when refused. */
export function openSocket(
  url: string,
  options: { cookie?: string; conversation: string; origin?: string },
): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const headers: Record<string, string> = {}
  if (options.cookie) headers.cookie = options.cookie
  if (options.origin) headers.origin = options.origin
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${options.conversation}`, {
    headers,
  })
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, closed }))
    ws.once('error', reject)
  })
}

/**
 * A page over a real `ws` socket: it sends protocol messages, records what the server sends,
 * and (with `autoAnswer`) answers describes and calls from its tool list. Consequential and
 * destructive tools answer `needs_confirmation`; `approve`/`reject` send the `confirmed`.
 */
export class FakePage {
  readonly clientId = randomUUID()
  readonly inbox: AgentToPageMessage[] = []
  readonly pending = new Map<string, { tool: FakeTool; input: Record<string, unknown> }>()
  readonly calls: Array<{ tool: string; input: Record<string, unknown>; rev?: number }> = []
  autoAnswer = true
  rev = 1
  #waiters: Array<{ match: (m: AgentToPageMessage) => boolean; resolve: (m: AgentToPageMessage) => void }> =
    []

  private constructor(
    readonly ws: WebSocket,
    public tools: FakeTool[],
  ) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as AgentToPageMessage
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
    options: { manifest?: boolean } = {},
  ): Promise<FakePage> {
    const { ws } = await openSocket(url, { cookie: browser.cookie, conversation })
    const page = new FakePage(ws, tools)
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

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  /** Resolves once the server has handled everything sent so far (ping/pong is ordered after it). */
  flush(): Promise<void> {
    return new Promise((resolve) => {
      this.ws.once('pong', () => resolve())
      this.ws.ping()
    })
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

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return
    const done = new Promise((resolve) => this.ws.once('close', resolve))
    this.ws.close()
    await done
  }

  #answer(message: AgentToPageMessage): void {
    if (message.type === 'cancel') return
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

/** A provider that plays back scripted turns and records every request it gets. */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted'
  readonly requests: ProviderRequest[] = []
  constructor(readonly script: Array<(request: ProviderRequest) => ProviderEvent[]>) {}

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    this.requests.push(
      structuredClone({ system: request.system, messages: request.messages, tools: request.tools }),
    )
    const step = this.script.shift()
    for (const event of step ? step(request) : [{ type: 'text' as const, delta: 'ok' }]) yield event
  }
}

/** Tool-call helper for scripted turns. */
export const toolCall = (id: string, name: string, input: unknown): ProviderEvent => ({
  type: 'tool_call',
  call: { id, name, input },
})
