import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import { type AgentToPageMessage, PROTOCOL_VERSION } from '@toolmark/core/protocol'
import { type Clock, systemClock } from '../shared/clock.ts'
import { escapeForLog } from '../shared/log.ts'
import type { CallBinding, Store } from '../store/store.ts'
import { type InboundHost, receive } from './inbound.ts'
import type {
  BoundPage,
  Conn,
  PageConnection,
  PageRequest,
  RelayEvents,
  RequestOutcome,
  Waiter,
} from './types.ts'

export { MAX_INBOUND_BYTES } from './inbound.ts'
export type {
  BoundPage,
  PageConnection,
  PageRequest,
  Rejection,
  RejectReason,
  RelayEvents,
  RequestOutcome,
} from './types.ts'

/** What the agent sees when a page does not answer before the deadline (server-side only). */
export const TIMEOUT_RESULT: ToolResult = {
  status: 'error',
  message: 'Timed out: the page did not answer in time',
}
/** What the agent sees when the conversation has no page to call. */
export const NO_PAGE_RESULT: ToolResult = {
  status: 'error',
  message: 'No page is connected to this conversation',
}
/** What pending calls resolve with when the relay shuts down. */
export const SHUTDOWN_RESULT: ToolResult = { status: 'error', message: 'The server is shutting down' }

export interface RelayOptions {
  store: Store
  deadlineMs: number
  clock?: Clock
  /** Log sink for rejections and relay notes (never payloads). Default `console.warn`. */
  log?: (line: string) => void
}

/**
 * The server half of bridge protocol v1: it relays agent requests to the bound page and accepts
 * page messages only when they pass every Security MUST (docs/protocol/v1.md, Security MUSTs).
 * This class owns the sockets and the bindings (ids bound before sending, deadlines, expiry);
 * `inbound.ts` checks and handles what the page sends.
 */
export class Relay {
  readonly #store: Store
  readonly #deadlineMs: number
  readonly #clock: Clock
  readonly #log: (line: string) => void
  readonly #conns = new Set<Conn>()
  readonly #waiters = new Map<string, Waiter>()
  readonly #listeners: { [K in keyof RelayEvents]: Set<(event: RelayEvents[K]) => void> } = {
    rejected: new Set(),
    confirmed: new Set(),
    expired: new Set(),
    rebound: new Set(),
  }
  readonly #inbound: InboundHost
  /** Settles once the calls left pending by an earlier run are timed out; requests wait for it. */
  readonly #ready: Promise<void>

  constructor(options: RelayOptions) {
    this.#store = options.store
    this.#deadlineMs = options.deadlineMs
    this.#clock = options.clock ?? systemClock
    this.#log = options.log ?? ((line) => console.warn(line))
    this.#inbound = {
      store: this.#store,
      clock: this.#clock,
      log: this.#log,
      emit: (event, payload) => this.#emit(event, payload),
      takeWaiter: (callId) => this.#take(callId),
      isOpen: (conversationId, clientId) => this.#isOpen(conversationId, clientId),
      expire: (conversationId, clientId) => this.#expire(conversationId, clientId),
      timeOut: (binding) => this.#timeOut(binding),
    }
    // Nobody waits for calls made before a restart: their deadline outcome was never delivered.
    this.#ready = this.#store.timeOutPendingCalls().then(
      () => {},
      (error: unknown) => this.#log(`[relay] could not time out earlier calls: ${escapeForLog(error)}`),
    )
  }

  /** Subscribe to relay events; returns the unsubscribe function. */
  on<K extends keyof RelayEvents>(event: K, listener: (event: RelayEvents[K]) => void): () => void {
    this.#listeners[event].add(listener)
    return () => this.#listeners[event].delete(listener)
  }

  /** Attach an authenticated socket bound to `(userId, conversationId)`. */
  connect(userId: string, conversationId: string, send: (text: string) => void): PageConnection {
    const conn: Conn = { userId, conversationId, send, clientIds: new Set(), open: true }
    this.#conns.add(conn)
    // One socket's messages are handled one after the other, in the order they arrived.
    let queue: Promise<unknown> = Promise.resolve()
    const serial = <T>(task: () => Promise<T>, otherwise: T): Promise<T> => {
      const next = queue.then(task).catch((error: unknown) => {
        this.#log(`[relay] page message failed: ${escapeForLog(error)}`)
        return otherwise
      })
      queue = next
      return next
    }
    return {
      receive: (text) =>
        conn.open ? serial(() => receive(this.#inbound, conn, text), false) : Promise.resolve(false),
      close: () => {
        if (!conn.open) return
        conn.open = false
        this.#conns.delete(conn)
        // A page rebound away whose last socket closed is gone: its confirmIds are expired (docs/protocol/v1.md, Navigation and full reloads).
        void serial(async () => {
          const active = await this.#store.getActiveClient(conversationId)
          for (const clientId of conn.clientIds) {
            if (clientId !== active && !this.#isOpen(conversationId, clientId))
              await this.#expire(conversationId, clientId)
          }
        }, undefined)
      },
    }
  }

  /** The page the conversation is bound to and its latest manifest, if any. */
  async page(conversationId: string): Promise<BoundPage | undefined> {
    const clientId = await this.#store.getActiveClient(conversationId)
    const manifest = clientId ? await this.#store.getManifest(clientId) : undefined
    return clientId && manifest ? { clientId, rev: manifest.rev, tools: manifest.tools } : undefined
  }

  /** The latest manifest entry of `tool` sent by `clientId`, if any. */
  async toolEntry(clientId: string, tool: string): Promise<ToolManifestSummary | undefined> {
    return (await this.#store.getManifest(clientId))?.tools.find((t) => t.name === tool)
  }

  /**
   * Send a `call` or `describe` to the conversation's bound page. The id is a fresh UUID v4,
   * bound to user, conversation and clientId and stored before the message is sent; the outcome
   * is the page's result, or {@link TIMEOUT_RESULT} at the deadline (a `cancel` is sent then).
   */
  async request(
    scope: { userId: string; conversationId: string; toolCallId: string },
    request: PageRequest,
  ): Promise<RequestOutcome> {
    await this.#ready
    const callId = crypto.randomUUID()
    const clientId = await this.#store.getActiveClient(scope.conversationId)
    if (!clientId || this.#targets(scope.conversationId, clientId).length === 0) {
      return { callId, clientId, result: NO_PAGE_RESULT, timedOut: false }
    }
    const now = this.#clock.now()
    const binding: CallBinding = {
      id: callId,
      userId: scope.userId,
      conversationId: scope.conversationId,
      clientId,
      kind: request.kind,
      tool: request.tool,
      toolCallId: scope.toolCallId,
      deadlineAt: now + this.#deadlineMs,
      createdAt: now,
      state: 'pending',
    }
    await this.#store.insertCall(binding)
    const message: AgentToPageMessage =
      request.kind === 'call'
        ? {
            protocol: PROTOCOL_VERSION,
            type: 'call',
            clientId,
            id: callId,
            ...(request.rev === undefined ? {} : { rev: request.rev }),
            tool: request.tool,
            input: request.input,
          }
        : { protocol: PROTOCOL_VERSION, type: 'describe', clientId, id: callId, tool: request.tool }
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(() => {
        this.#timeOut(binding).catch((error: unknown) => {
          // The store could not record the timeout: the agent still gets it, and is never left waiting.
          this.#log(`[relay] could not record a timeout: ${escapeForLog(error)}`)
          this.#take(binding.id)?.resolve(this.#timedOut(binding))
        })
      }, this.#deadlineMs)
      this.#waiters.set(callId, {
        resolve,
        timer,
        secrets: request.kind === 'call' ? (request.secrets ?? []) : [],
      })
      this.#sendTo(binding.conversationId, clientId, message)
    })
  }

  /** Resolve every pending request with {@link SHUTDOWN_RESULT} and forget all sockets. */
  async close(): Promise<void> {
    const settled: Promise<unknown>[] = []
    for (const [callId, waiter] of this.#waiters) {
      this.#clock.clearTimeout(waiter.timer)
      settled.push(this.#store.settleCall(callId, 'timed_out').catch(() => false))
      waiter.resolve({ callId, clientId: undefined, result: SHUTDOWN_RESULT, timedOut: false })
    }
    this.#waiters.clear()
    for (const conn of this.#conns) conn.open = false
    this.#conns.clear()
    await Promise.all(settled)
  }

  /** Removes and returns the request waiting for `callId`, with its deadline timer cleared. */
  #take(callId: string): Waiter | undefined {
    const waiter = this.#waiters.get(callId)
    if (waiter) this.#clock.clearTimeout(waiter.timer)
    this.#waiters.delete(callId)
    return waiter
  }

  #timedOut(binding: CallBinding): RequestOutcome {
    return { callId: binding.id, clientId: binding.clientId, result: TIMEOUT_RESULT, timedOut: true }
  }

  #emit<K extends keyof RelayEvents>(event: K, payload: RelayEvents[K]): void {
    for (const listener of this.#listeners[event]) listener(payload)
  }

  #isOpen(conversationId: string, clientId: string): boolean {
    for (const conn of this.#conns)
      if (conn.conversationId === conversationId && conn.clientIds.has(clientId)) return true
    return false
  }

  /** Sockets of the conversation known to carry `clientId`, else all of the conversation's sockets. */
  #targets(conversationId: string, clientId: string): Conn[] {
    const all = [...this.#conns].filter((c) => c.conversationId === conversationId)
    const known = all.filter((c) => c.clientIds.has(clientId))
    return known.length > 0 ? known : all
  }

  #sendTo(conversationId: string, clientId: string, message: AgentToPageMessage): void {
    const text = JSON.stringify(message)
    for (const conn of this.#targets(conversationId, clientId)) conn.send(text)
  }

  async #expire(conversationId: string, clientId: string): Promise<void> {
    const bindings = await this.#store.expireConfirms(conversationId, clientId)
    if (bindings.length > 0) this.#emit('expired', { conversationId, bindings })
  }

  async #timeOut(binding: CallBinding): Promise<void> {
    // Only the side that settles the call (this timeout, or the page's result) takes its waiter.
    if (!(await this.#store.settleCall(binding.id, 'timed_out'))) return
    const waiter = this.#take(binding.id)
    const cancel: AgentToPageMessage = {
      protocol: PROTOCOL_VERSION,
      type: 'cancel',
      clientId: binding.clientId,
      id: binding.id,
    }
    this.#sendTo(binding.conversationId, binding.clientId, cancel)
    waiter?.resolve(this.#timedOut(binding))
  }
}
