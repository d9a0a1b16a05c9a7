import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import { type AgentToPageMessage, PROTOCOL_VERSION } from '@toolmark/protocol'
import { type Clock, systemClock } from '../shared/clock.ts'
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
      takeWaiter: (callId) => {
        const waiter = this.#waiters.get(callId)
        this.#waiters.delete(callId)
        return waiter
      },
      isOpen: (conversationId, clientId) => this.#isOpen(conversationId, clientId),
      expire: (conversationId, clientId) => this.#expire(conversationId, clientId),
      timeOut: (binding) => this.#timeOut(binding),
    }
    // Nobody waits for calls made before a restart: their deadline outcome was never delivered.
    this.#store.timeOutPendingCalls()
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
    return {
      receive: (text) => conn.open && receive(this.#inbound, conn, text),
      close: () => {
        if (!conn.open) return
        conn.open = false
        this.#conns.delete(conn)
        // A page rebound away whose last socket closed is gone: its confirmIds are expired (docs/protocol/v1.md, Navigation and full reloads).
        const active = this.#store.getActiveClient(conversationId)
        for (const clientId of conn.clientIds) {
          if (clientId !== active && !this.#isOpen(conversationId, clientId))
            this.#expire(conversationId, clientId)
        }
      },
    }
  }

  /** The page the conversation is bound to and its latest manifest, if any. */
  page(conversationId: string): BoundPage | undefined {
    const clientId = this.#store.getActiveClient(conversationId)
    const manifest = clientId ? this.#store.getManifest(clientId) : undefined
    return clientId && manifest ? { clientId, rev: manifest.rev, tools: manifest.tools } : undefined
  }

  /** The latest manifest entry of `tool` sent by `clientId`, if any. */
  toolEntry(clientId: string, tool: string): ToolManifestSummary | undefined {
    return this.#store.getManifest(clientId)?.tools.find((t) => t.name === tool)
  }

  /**
   * Send a `call` or `describe` to the conversation's bound page. The id is a fresh UUID v4,
   * bound to user, conversation and clientId and stored before the message is sent; the outcome
   * is the page's result, or {@link TIMEOUT_RESULT} at the deadline (a `cancel` is sent then).
   */
  request(
    scope: { userId: string; conversationId: string; toolCallId: string },
    request: PageRequest,
  ): Promise<RequestOutcome> {
    const callId = crypto.randomUUID()
    const clientId = this.#store.getActiveClient(scope.conversationId)
    if (!clientId || this.#targets(scope.conversationId, clientId).length === 0) {
      return Promise.resolve({ callId, clientId, result: NO_PAGE_RESULT, timedOut: false })
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
    this.#store.insertCall(binding)
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
      const timer = this.#clock.setTimeout(() => this.#timeOut(binding), this.#deadlineMs)
      this.#waiters.set(callId, {
        resolve,
        timer,
        secrets: request.kind === 'call' ? (request.secrets ?? []) : [],
      })
      this.#sendTo(binding.conversationId, clientId, message)
    })
  }

  /** Resolve every pending request with {@link SHUTDOWN_RESULT} and forget all sockets. */
  close(): void {
    for (const [callId, waiter] of this.#waiters) {
      this.#clock.clearTimeout(waiter.timer)
      this.#store.settleCall(callId, 'timed_out')
      waiter.resolve({ callId, clientId: undefined, result: SHUTDOWN_RESULT, timedOut: false })
    }
    this.#waiters.clear()
    for (const conn of this.#conns) conn.open = false
    this.#conns.clear()
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

  #expire(conversationId: string, clientId: string): void {
    const bindings = this.#store.expireConfirms(conversationId, clientId)
    if (bindings.length > 0) this.#emit('expired', { conversationId, bindings })
  }

  #timeOut(binding: CallBinding): void {
    const waiter = this.#waiters.get(binding.id)
    if (waiter) this.#clock.clearTimeout(waiter.timer)
    this.#waiters.delete(binding.id)
    if (!this.#store.settleCall(binding.id, 'timed_out')) return
    const cancel: AgentToPageMessage = {
      protocol: PROTOCOL_VERSION,
      type: 'cancel',
      clientId: binding.clientId,
      id: binding.id,
    }
    this.#sendTo(binding.conversationId, binding.clientId, cancel)
    waiter?.resolve({
      callId: binding.id,
      clientId: binding.clientId,
      result: TIMEOUT_RESULT,
      timedOut: true,
    })
  }
}
