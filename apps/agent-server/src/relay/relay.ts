import { randomUUID } from 'node:crypto'
import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import {
  type AgentToPageMessage,
  boundedCopy,
  type ConfirmedMessage,
  type ManifestMessage,
  PROTOCOL_VERSION,
  type ResultMessage,
  validateMessage,
} from '@toolmark/core/protocol'
import { type Clock, systemClock } from '../shared/clock.ts'
import { logString } from '../shared/log.ts'
import { maskText, scrub } from '../shared/redact.ts'
import type { CallBinding, ConfirmBinding, Store } from '../store/store.ts'

/** Largest inbound page message the relay parses, in bytes of its JSON text (4 MiB). */
export const MAX_INBOUND_BYTES = 4 * 1_048_576

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

/** Why an inbound page message was rejected (logged, never handed to the agent). */
export type RejectReason =
  | 'invalid' // not JSON, too large/deep, or not a valid page→agent message
  | 'unknown_id' // a result for an id the server never issued (MUST 4)
  | 'mismatch' // id/confirmId/clientId bound to another user, conversation or page load (MUST 3)
  | 'duplicate' // a second result for the same id (MUST 4)
  | 'late' // a result after the call's deadline (MUST 5)
  | 'unknown_confirm' // a confirmed whose confirmId no accepted needs_confirmation carried (MUST 3)
  | 'duplicate_confirm' // a second confirmed for the same confirmId
  | 'expired_confirm' // a confirmed for a confirmId of a page that is gone (treated as expired)
  | 'old_rev' // a manifest with a lower rev than the one stored for its clientId (out of order)

/** One rejected inbound message, for logs and tests. Never carries the message's payload. */
export interface Rejection {
  reason: RejectReason
  type: string
  userId: string
  conversationId: string
  clientId?: string
  id?: string
  detail?: string
}

/**
 * A `needs_confirmation` result without `changes` gets `changes: []` before validation: the
 * protocol's deferred flow writes `changes?`, so a page that omits it must not wait out its
 * deadline (the Toolmark page always sends it). `value` is the relay's own bounded copy.
 */
function defaultChanges(value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  const message = value as { type?: unknown; result?: unknown }
  if (message.type !== 'result' && message.type !== 'confirmed') return
  const result = message.result
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return
  const r = result as Record<string, unknown>
  if (r.status === 'needs_confirmation' && !Object.hasOwn(r, 'changes')) r.changes = []
}

/** What a relayed request resolves with. */
export interface RequestOutcome {
  callId: string
  clientId: string | undefined
  result: ToolResult
  timedOut: boolean
}

/** A protocol request the agent loop makes on behalf of one of its tool calls. */
export type PageRequest =
  | {
      kind: 'call'
      tool: string
      input: Record<string, unknown>
      rev?: number
      /** The input's values at the tool's sensitive paths: cut out of a `needs_confirmation` summary. */
      secrets?: readonly string[]
    }
  | { kind: 'describe'; tool: string }

/** The page a conversation is bound to and the latest manifest it sent. */
export interface BoundPage {
  clientId: string
  rev: number
  tools: ToolManifestSummary[]
}

interface RelayEvents {
  rejected: Rejection
  confirmed: { binding: ConfirmBinding; result: ToolResult }
  expired: { conversationId: string; bindings: ConfirmBinding[] }
  rebound: { conversationId: string; from: string | undefined; to: string }
}

/** One authenticated socket, bound to a user and a conversation before anything is relayed. */
export interface PageConnection {
  /** Handle one inbound text frame; true when it was accepted, false when rejected (and logged). */
  receive(text: string): boolean
  /** The socket closed. */
  close(): void
}

interface Conn {
  userId: string
  conversationId: string
  send: (text: string) => void
  clientIds: Set<string>
  open: boolean
}

interface Waiter {
  resolve: (outcome: RequestOutcome) => void
  timer: unknown
  secrets: readonly string[]
}

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

  constructor(options: RelayOptions) {
    this.#store = options.store
    this.#deadlineMs = options.deadlineMs
    this.#clock = options.clock ?? systemClock
    this.#log = options.log ?? ((line) => console.warn(line))
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
      receive: (text) => conn.open && this.#receive(conn, text),
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
    const callId = randomUUID()
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

  /** Logs and reports a rejected message; returns false (the message was not accepted). */
  #reject(conn: Conn, rejection: Omit<Rejection, 'userId' | 'conversationId'>): false {
    const full: Rejection = { ...rejection, userId: conn.userId, conversationId: conn.conversationId }
    // Ids and details can come from the page: each is escaped, so none can start a new line.
    this.#log(
      `[relay] rejected ${full.type} (${full.reason}) conversation=${full.conversationId}` +
        (full.clientId ? ` clientId=${logString(full.clientId)}` : '') +
        (full.id ? ` id=${logString(full.id)}` : '') +
        (full.detail ? `: ${logString(full.detail)}` : ''),
    )
    this.#emit('rejected', full)
    return false
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

  #receive(conn: Conn, text: string): boolean {
    if (text.length > MAX_INBOUND_BYTES)
      return this.#reject(conn, { reason: 'invalid', type: '?', detail: 'too large' })
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return this.#reject(conn, { reason: 'invalid', type: '?', detail: 'not JSON' })
    }
    const copy = boundedCopy(parsed, { maxBytes: MAX_INBOUND_BYTES })
    if (!copy.ok) return this.#reject(conn, { reason: 'invalid', type: '?', detail: copy.reason })
    defaultChanges(copy.value)
    const checked = validateMessage(copy.value, 'toAgent')
    if (!checked.ok) return this.#reject(conn, { reason: 'invalid', type: '?', detail: checked.reason })
    const message = checked.message
    switch (message.type) {
      case 'manifest':
        return this.#manifest(conn, message)
      case 'changed':
        // The tool list arrives with the next manifest; a `changed` only proves the page is alive.
        if (!this.#ownsClient(conn, message.clientId, 'changed')) return false
        conn.clientIds.add(message.clientId)
        return true
      case 'result':
        return this.#result(conn, message)
      case 'confirmed':
        return this.#confirmed(conn, message)
    }
  }

  /** A clientId is one page load in one conversation: another user's or conversation's is refused. */
  #ownsClient(conn: Conn, clientId: string, type: string): boolean {
    const known = this.#store.getManifest(clientId)
    if (!known || (known.userId === conn.userId && known.conversationId === conn.conversationId)) return true
    this.#reject(conn, {
      reason: 'mismatch',
      type,
      clientId,
      detail: 'clientId belongs to another conversation',
    })
    return false
  }

  #manifest(conn: Conn, message: ManifestMessage): boolean {
    if (!this.#ownsClient(conn, message.clientId, 'manifest')) return false
    const first = this.#store.getManifest(message.clientId) === undefined
    conn.clientIds.add(message.clientId)
    // Revisions only move forward per page load: a late, older manifest never replaces a newer one.
    const stored = this.#store.putManifest({
      clientId: message.clientId,
      userId: conn.userId,
      conversationId: conn.conversationId,
      rev: message.rev,
      tools: message.tools,
      updatedAt: this.#clock.now(),
    })
    if (!stored) {
      const newer = this.#store.getManifest(message.clientId)?.rev
      return this.#reject(conn, {
        reason: 'old_rev',
        type: 'manifest',
        clientId: message.clientId,
        detail: `rev ${message.rev} is older than the stored rev ${newer}`,
      })
    }
    if (!first) return true
    // A new page load (full reload or new tab) of this user and conversation: future calls go to it (docs/protocol/v1.md, Navigation and full reloads).
    const previous = this.#store.getActiveClient(conn.conversationId)
    if (previous === message.clientId) return true
    this.#store.setActiveClient(conn.conversationId, message.clientId)
    this.#log(`[relay] conversation=${conn.conversationId} rebound to a new page load`)
    this.#emit('rebound', { conversationId: conn.conversationId, from: previous, to: message.clientId })
    if (previous && !this.#isOpen(conn.conversationId, previous)) this.#expire(conn.conversationId, previous)
    return true
  }

  #result(conn: Conn, message: ResultMessage): boolean {
    const base = { type: 'result', id: message.id, clientId: message.clientId }
    const binding = this.#store.getCall(message.id)
    if (!binding) return this.#reject(conn, { ...base, reason: 'unknown_id' })
    if (
      binding.userId !== conn.userId ||
      binding.conversationId !== conn.conversationId ||
      binding.clientId !== message.clientId
    ) {
      return this.#reject(conn, { ...base, reason: 'mismatch' })
    }
    if (binding.state === 'answered') return this.#reject(conn, { ...base, reason: 'duplicate' })
    if (binding.state === 'timed_out') return this.#reject(conn, { ...base, reason: 'late' })
    if (this.#clock.now() > binding.deadlineAt) {
      this.#timeOut(binding) // the agent sees the timeout and the page gets its cancel first
      return this.#reject(conn, { ...base, reason: 'late' })
    }
    if (!this.#store.settleCall(binding.id, 'answered'))
      return this.#reject(conn, { ...base, reason: 'duplicate' })
    conn.clientIds.add(message.clientId)
    const result = message.result
    const waiter = this.#waiters.get(binding.id)
    // Only a call can create a confirmation; a describe answered needs_confirmation binds nothing.
    if (result.status === 'needs_confirmation' && binding.kind === 'call') {
      const bound = this.#store.insertConfirm({
        confirmId: result.confirmId,
        userId: binding.userId,
        conversationId: binding.conversationId,
        clientId: binding.clientId,
        callId: binding.id,
        toolCallId: binding.toolCallId,
        tool: binding.tool,
        // The page's summary is free text: masked (and the call's secrets cut out) before it is stored.
        summary: maskText(scrub(result.summary, waiter?.secrets)),
        createdAt: this.#clock.now(),
        state: 'pending',
      })
      if (!bound)
        this.#log(`[relay] confirmId reused by conversation=${binding.conversationId}; first binding kept`)
    }
    this.#waiters.delete(binding.id)
    if (!waiter) return true
    this.#clock.clearTimeout(waiter.timer)
    waiter.resolve({ callId: binding.id, clientId: binding.clientId, result, timedOut: false })
    return true
  }

  #confirmed(conn: Conn, message: ConfirmedMessage): boolean {
    const base = { type: 'confirmed', id: message.confirmId, clientId: message.clientId }
    const binding = this.#store.getConfirm(message.confirmId)
    if (!binding) return this.#reject(conn, { ...base, reason: 'unknown_confirm' })
    if (
      binding.userId !== conn.userId ||
      binding.conversationId !== conn.conversationId ||
      binding.clientId !== message.clientId
    ) {
      return this.#reject(conn, { ...base, reason: 'mismatch' })
    }
    if (binding.state === 'used') return this.#reject(conn, { ...base, reason: 'duplicate_confirm' })
    if (binding.state === 'expired') return this.#reject(conn, { ...base, reason: 'expired_confirm' })
    if (!this.#store.settleConfirm(binding.confirmId, 'used')) {
      return this.#reject(conn, { ...base, reason: 'duplicate_confirm' })
    }
    conn.clientIds.add(message.clientId)
    this.#emit('confirmed', { binding: { ...binding, state: 'used' }, result: message.result })
    return true
  }
}
