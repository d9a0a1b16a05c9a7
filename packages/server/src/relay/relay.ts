import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import {
  type AgentToPageMessage,
  CONFIRM_TTL_MS,
  NO_PAGE_RESULT,
  PROTOCOL_VERSION,
  TIMEOUT_RESULT,
} from '@toolmark/protocol'
import { maskResult } from '../cluster/mask.ts'
import { type Coordinator, LEASE_MS, type Located, type Outcome } from '../coordinate/coordinator.ts'
import { localCoordinator } from '../coordinate/local.ts'
import { type Clock, systemClock } from '../shared/clock.ts'
import { LimitExceeded, MAX_PAGE_CONNECTIONS_PER_USER, PerUser } from '../shared/limits.ts'
import { escapeForLog } from '../shared/log.ts'
import { maskText, scrub } from '../shared/redact.ts'
import type { CallBinding, Store } from '../store/store.ts'
import { Decisions } from './decisions.ts'
import { type InboundHost, receive, refuse } from './inbound.ts'
import type {
  BoundPage,
  Conn,
  PageConnection,
  PageRequest,
  RelayEvents,
  RequestOutcome,
  ToPageMessage,
  Waiter,
} from './types.ts'

export { type Bounded, bound, MAX_INBOUND_BYTES } from './inbound.ts'
export type {
  BoundPage,
  PageConnection,
  PageRequest,
  Rejection,
  RejectReason,
  RelayEvents,
  RequestOutcome,
} from './types.ts'

/** What the agent sees at a deadline, or with no page to call: one text for every server (`@toolmark/protocol`). */
export { NO_PAGE_RESULT, TIMEOUT_RESULT }
/** What a request resolves with when its `signal` aborts before the page answered (a `cancel` is sent). */
export const CANCELLED_RESULT: ToolResult = { status: 'cancelled', by: 'signal' }
/** What the agent sees when the page is on another instance and the coordinator (Redis) cannot be reached. */
export const COORDINATOR_UNAVAILABLE_RESULT: ToolResult = {
  status: 'error',
  message: 'The server instances cannot reach each other right now; try again shortly',
}
/** What pending calls resolve with when the relay shuts down. */
export const SHUTDOWN_RESULT: ToolResult = { status: 'error', message: 'The server is shutting down' }

export interface RelayOptions {
  store: Store
  deadlineMs: number
  clock?: Clock
  /** Log sink for rejections and relay notes (never payloads). Default `console.warn`. */
  log?: (line: string) => void
  /**
   * How page loads held by other instances are reached, and how answers come back to the instance that waits
   * (shared mode). Default none to reach (one process).
   */
  coordinator?: Coordinator
  /**
   * How long after a `needs_confirmation` its approval is still accepted; a `confirmed` after that is
   * refused (`expired_confirm`) and the agent told it expired, whichever instance it reaches. Default
   * {@link CONFIRM_TTL_MS}; `Infinity` keeps only the page's own expiry.
   */
  confirmTtlMs?: number
  /**
   * Most page connections (sockets and HTTP page streams) one user holds on this instance at once; one more is
   * refused ({@link Relay.connect} throws `LimitExceeded`). Default {@link MAX_PAGE_CONNECTIONS_PER_USER}.
   */
  maxConnectionsPerUser?: number
  /**
   * Ask a pending confirmation again on a new page load of its conversation (a reload, another tab, after a
   * restart), when the store keeps decisions. Default true; false: a gone page's cards are lost, and the agent
   * is told they expired.
   */
  reaskConfirmations?: boolean
}

/**
 * The default lifetime of a confirmation on the server (the protocol's `CONFIRM_TTL_MS`): the page's own
 * expiry (600 000 ms) plus a minute, so an approval the page accepted in time is never refused on its way.
 */
export { CONFIRM_TTL_MS }

/**
 * What a waiting instance resolves a call with when its page answered on another instance but the answer did not
 * arrive (the coordinator was unreachable) within {@link LOST_ANSWER_GRACE_MS} after the deadline.
 */
export const LOST_RESULT: ToolResult = {
  status: 'error',
  message: 'The page answered, but the answer was lost between server instances',
}
/** The outcomes that are no answer of the page: a call asked again keeps its decision pending on them. */
const UNANSWERED: ReadonlySet<ToolResult> = new Set([
  NO_PAGE_RESULT,
  TIMEOUT_RESULT,
  CANCELLED_RESULT,
  COORDINATOR_UNAVAILABLE_RESULT,
  SHUTDOWN_RESULT,
  LOST_RESULT,
])

/** How long past its deadline a call answered on another instance waits for that answer to arrive. */
export const LOST_ANSWER_GRACE_MS = 5_000
/** How long a held page load's claim lives without a heartbeat (the heartbeat renews it every third of it). */
export { LEASE_MS }

/**
 * How long an instance uses its copy of a conversation's page binding and manifest before it reads them again,
 * at most; a change on any instance drops the copies at once (see {@link Relay.page}).
 */
export const PAGE_CACHE_MS = 5_000
/** Most conversations whose page an instance keeps a copy of (the least recently read go first). */
const PAGE_CACHE_SIZE = 10_000

/** How often a call is bound again when the conversation was rebound between reading and binding it. */
const MAX_BIND_ATTEMPTS = 3

/** Runs tasks one after the other; a task that fails is logged and gives `otherwise`. */
type Serial = <T>(task: () => Promise<T>, otherwise: T) => Promise<T>

function serialQueue(log: (line: string) => void): Serial {
  let queue: Promise<unknown> = Promise.resolve()
  return <T>(task: () => Promise<T>, otherwise: T): Promise<T> => {
    const next = queue.then(task).catch((error: unknown) => {
      log(`[relay] page message failed: ${escapeForLog(error)}`)
      return otherwise
    })
    queue = next
    return next
  }
}

/** A call bound to its page load, with the instances that may hold it (shared mode). */
interface Bound {
  binding: CallBinding
  holders: string[] | undefined
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
  /** The page connections each user holds here. */
  readonly #perUser: PerUser
  readonly #waiters = new Map<string, Waiter>()
  readonly #listeners: { [K in keyof RelayEvents]: Set<(event: RelayEvents[K]) => void> } = {
    rejected: new Set(),
    confirmed: new Set(),
    expired: new Set(),
    rebound: new Set(),
    withdrawn: new Set(),
    progress: new Set(),
  }
  readonly #inbound: InboundHost
  /** Settles once the calls left pending by an earlier run are timed out; requests wait for it. */
  readonly #ready: Promise<void>
  readonly #coordinator: Coordinator
  /** Stops the coordinator's use of this relay's connections (its heartbeat, its handlers). */
  readonly #detach: () => void
  /** Conversation → the copy of its bound page and when the read that got it started (see {@link Relay.page}). */
  readonly #pages = new Map<string, { page: BoundPage; at: number }>()
  /** Counts the changes of page bindings this instance learned of; a read notes it when it starts. */
  #epoch = 0
  /** Conversation → the {@link Relay.#epoch} of its latest change (the oldest forgotten beyond the cache size). */
  readonly #changedAt = new Map<string, number>()
  /** The latest epoch of a change forgotten from {@link Relay.#changedAt}: it counts for every conversation. */
  #forgottenAt = 0
  /**
   * Secrets (input values at a tool's sensitive paths) this instance keeps in memory, and until when:
   * `call:<id>` those of a call another instance handed to a page here, until its result crossed back
   * masked with them (or its deadline passed); `confirm:<id>` those of the call that asked for a
   * confirmation, until the outcome the user approved was masked with them (or its lifetime ended).
   */
  readonly #kept = new Map<string, { secrets: readonly string[]; until: number }>()
  /** How long a confirmation's secrets are kept at most. */
  readonly #confirmTtlMs: number
  /** The user's pending decisions, asked again on new page loads (undefined: never asked again). */
  readonly #decisions: Decisions | undefined

  constructor(options: RelayOptions) {
    this.#store = options.store
    this.#deadlineMs = options.deadlineMs
    this.#clock = options.clock ?? systemClock
    this.#log = options.log ?? ((line) => console.warn(line))
    this.#perUser = new PerUser(options.maxConnectionsPerUser ?? MAX_PAGE_CONNECTIONS_PER_USER)
    const ttl = options.confirmTtlMs ?? CONFIRM_TTL_MS
    this.#confirmTtlMs = Number.isFinite(ttl) ? ttl : CONFIRM_TTL_MS
    this.#inbound = {
      store: this.#store,
      clock: this.#clock,
      confirmTtlMs: Number.isFinite(ttl) ? ttl : undefined,
      log: this.#log,
      emit: (event, payload) => this.#emit(event, payload),
      takeWaiter: (callId) => this.#take(callId),
      callSecrets: (callId) => this.callSecrets(callId),
      keepConfirmSecrets: (confirmId, secrets) =>
        this.#keep(`confirm:${confirmId}`, secrets, this.#confirmTtlMs),
      takeConfirmSecrets: (confirmId) => this.#secretsOf(`confirm:${confirmId}`, true),
      isOpen: (conversationId, clientId) => this.#isOpenAnywhere(conversationId, clientId),
      forward: (binding, result) => this.#forward(binding, result),
      expire: (conversationId, clientId) => this.#expire(conversationId, clientId),
      timeOut: (binding) => this.#timeOut(binding),
      pageChanged: (conversationId) => this.#pageChanged(conversationId),
      decide: async (binding, state) => this.#decisions?.decide(binding, state) ?? true,
      reask: (conversationId, clientId, page) => {
        this.#decisions
          ?.reask(conversationId, clientId, page)
          .catch((error: unknown) =>
            this.#log(`[relay] could not ask pending confirmations again: ${escapeForLog(error)}`),
          )
      },
    }
    this.#decisions =
      options.reaskConfirmations === false
        ? undefined
        : new Decisions({
            store: this.#store,
            clock: this.#clock,
            ttlMs: this.#confirmTtlMs,
            log: this.#log,
            emit: (event, payload) => this.#emit(event, payload),
            request: (scope, request) => this.request(scope, request),
            answered: (outcome) => !outcome.timedOut && !UNANSWERED.has(outcome.result),
            cancel: (conversationId, clientId, id) =>
              this.#sendTo(conversationId, clientId, {
                protocol: PROTOCOL_VERSION,
                type: 'cancel',
                clientId,
                id,
              }),
          })
    this.#coordinator = options.coordinator ?? localCoordinator()
    this.#detach = this.#coordinator.attachPages({
      connections: () => this.#conns,
      deliverHere: (conversationId, clientId, message) => {
        const targets = this.#targets(conversationId, clientId)
        for (const conn of targets) conn.send(message)
        return targets.length > 0
      },
      keepCallSecrets: (callId, secrets) =>
        this.#keep(`call:${callId}`, secrets, this.#deadlineMs + LOST_ANSWER_GRACE_MS),
      outcome: (outcome) => this.#outcome(outcome),
      pageChanged: (conversationId) => this.#forgetPage(conversationId),
    })
    // Nobody waits for calls made before a restart: their deadline outcome was never delivered.
    this.#ready = this.#coordinator
      .earlierCalls(() => this.#store.timeOutPendingCalls())
      .then(
        () => {},
        (error: unknown) => this.#log(`[relay] could not time out earlier calls: ${escapeForLog(error)}`),
      )
  }

  /** This instance's id among several (shared mode), else undefined. */
  get instance(): string | undefined {
    return this.#coordinator.instance
  }

  /**
   * The input values at the tool's sensitive paths of a call this instance knows (it waits for the call, or
   * handed it to a page here); empty for any other. What crosses to another instance is masked with them.
   */
  callSecrets(callId: string): readonly string[] {
    return this.#waiters.get(callId)?.secrets ?? this.#secretsOf(`call:${callId}`)
  }

  /** The secrets of the call that asked for a confirmation still open, when this instance knows them. */
  confirmSecrets(confirmId: string): readonly string[] {
    return this.#secretsOf(`confirm:${confirmId}`)
  }

  /** Subscribe to relay events; returns the unsubscribe function. */
  on<K extends keyof RelayEvents>(event: K, listener: (event: RelayEvents[K]) => void): () => void {
    this.#listeners[event].add(listener)
    return () => this.#listeners[event].delete(listener)
  }

  /**
   * Attach an authenticated socket bound to `(userId, conversationId)`. `carried`: the page loads it carries
   * already (a page connection handed over by another instance, see {@link PageConnection.handOver}), claimed
   * for this instance at once. Throws `LimitExceeded` (`too_many_connections`) when the user already holds
   * `maxConnectionsPerUser` page connections here.
   */
  connect(
    userId: string,
    conversationId: string,
    send: (message: ToPageMessage) => void,
    carried: readonly string[] = [],
  ): PageConnection {
    const release = this.#perUser.take(userId)
    if (!release)
      throw new LimitExceeded(
        'too_many_connections',
        `Too many page connections: at most ${this.#perUser.max} per user; close a tab and try again`,
        10,
      )
    const conn: Conn = { userId, conversationId, send, clientIds: new Set(carried), open: true }
    this.#conns.add(conn)
    // The connection is findable at once, before the page says which page load it carries.
    if (carried.length === 0) this.#coordinator.joinConnecting(conversationId)
    this.#coordinator.adoptPages(carried)
    // One socket's messages are handled one after the other, in the order they arrived.
    const serial = serialQueue(this.#log)
    const claim = (before: number) => {
      // A page load this socket carries from now on is claimed for this instance at once.
      if (conn.clientIds.size <= before) return
      this.#coordinator.holdPages(conn.clientIds)
      if (before === 0) this.#leaveUnknown(conversationId)
    }
    return {
      receive: (text) => {
        if (!conn.open) return Promise.resolve(false)
        return serial(async () => {
          const before = conn.clientIds.size
          const accepted = await receive(this.#inbound, conn, text)
          claim(before)
          return accepted
        }, false)
      },
      handOver: (to) => {
        if (!conn.open) return []
        conn.open = false
        this.#conns.delete(conn)
        release()
        if (conn.clientIds.size === 0) this.#leaveUnknown(conversationId)
        const isOpen = (clientId: string) => this.#isOpen(conversationId, clientId)
        this.#coordinator.handOverPages(
          [...conn.clientIds].filter((clientId) => !isOpen(clientId)),
          to,
          isOpen,
        )
        return [...conn.clientIds]
      },
      refuse: (detail) => {
        if (!conn.open) return Promise.resolve(false)
        return serial(async () => refuse(this.#inbound, conn, detail), false)
      },
      close: () => this.#close(conn, release, serial),
    }
  }

  /** Closes a page connection: its page loads are released, and those rebound away are gone. */
  #close(conn: Conn, release: () => void, serial: Serial): void {
    if (!conn.open) return
    conn.open = false
    this.#conns.delete(conn)
    release()
    for (const clientId of conn.clientIds)
      if (!this.#isOpen(conn.conversationId, clientId)) this.#coordinator.releasePage(clientId)
    if (conn.clientIds.size === 0) this.#leaveUnknown(conn.conversationId)
    // A page rebound away whose last socket closed is gone: its confirmIds are expired (docs/protocol/v1.md, Navigation and full reloads).
    void serial(async () => {
      const active = await this.#store.getActiveClient(conn.conversationId)
      for (const clientId of conn.clientIds) {
        if (clientId !== active && !(await this.#isOpenAnywhere(conn.conversationId, clientId)))
          await this.#expire(conn.conversationId, clientId)
      }
    }, undefined)
  }

  /**
   * The page the conversation is bound to and its latest manifest, if any. A store that binds calls itself
   * (`bindCall`) lets the relay keep a copy per conversation for up to {@link PAGE_CACHE_MS}: a rebinding or a
   * new manifest drops it on this instance at once and on the others when they get the broadcast, and a read
   * that started before such a change never stores what it got. Nothing is decided on the copy alone: a call
   * is bound only while the store says the conversation is bound to that page load.
   */
  async page(conversationId: string): Promise<BoundPage | undefined> {
    const cached = this.#cachedPage(conversationId)
    if (cached) return cached
    const cache = this.#store.bindCall !== undefined
    const epoch = this.#epoch
    const startedAt = this.#clock.now()
    const page = await this.#readPage(conversationId)
    if (cache && page && (this.#changedAt.get(conversationId) ?? this.#forgottenAt) <= epoch) {
      this.#pages.delete(conversationId)
      this.#pages.set(conversationId, { page, at: startedAt })
      if (this.#pages.size > PAGE_CACHE_SIZE) this.#pages.delete(this.#pages.keys().next().value!)
    }
    return page
  }

  /**
   * True while a page connection of the conversation is open (here or, in shared mode, on another instance) that
   * has not said yet which page load it carries: a page that is loading, its first manifest still to come.
   */
  async connecting(conversationId: string): Promise<boolean> {
    if (this.#unknown(conversationId).length > 0) return true
    return this.#coordinator.connectingElsewhere(conversationId)
  }

  /** The copy of the conversation's page, while it is young enough. */
  #cachedPage(conversationId: string): BoundPage | undefined {
    const cached = this.#pages.get(conversationId)
    if (!cached) return undefined
    if (this.#clock.now() - cached.at < PAGE_CACHE_MS) return cached.page
    this.#pages.delete(conversationId)
    return undefined
  }

  /** Drops this instance's copy of the conversation's page, and stops reads in flight from storing theirs. */
  #forgetPage(conversationId: string): void {
    this.#pages.delete(conversationId)
    this.#changedAt.delete(conversationId)
    this.#changedAt.set(conversationId, ++this.#epoch)
    if (this.#changedAt.size > PAGE_CACHE_SIZE) {
      const [oldest, at] = this.#changedAt.entries().next().value!
      this.#changedAt.delete(oldest)
      this.#forgottenAt = Math.max(this.#forgottenAt, at)
    }
  }

  /** The page binding or manifest of the conversation was written here: every instance drops its copy. */
  #pageChanged(conversationId: string): void {
    this.#forgetPage(conversationId)
    this.#coordinator.pageChanged(conversationId)
  }

  /** The conversation's page as the store has it. */
  async #readPage(conversationId: string): Promise<BoundPage | undefined> {
    if (this.#store.getActivePage) {
      const active = await this.#store.getActivePage(conversationId)
      return active && { clientId: active.clientId, rev: active.rev, tools: active.tools }
    }
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
    const outcome = await this.#request(scope, request)
    // The user's decision outlives the card: it is stored, to be asked again on a new page load.
    if (this.#decisions && request.kind === 'call' && outcome.result.status === 'needs_confirmation') {
      const entry = outcome.clientId ? await this.toolEntry(outcome.clientId, request.tool) : undefined
      await this.#decisions
        .open(scope, request, entry)
        .catch((error: unknown) =>
          this.#log(`[relay] could not keep a pending decision: ${escapeForLog(error)}`),
        )
    }
    return outcome
  }

  async #request(
    scope: { userId: string; conversationId: string; toolCallId: string },
    request: PageRequest,
  ): Promise<RequestOutcome> {
    await this.#ready
    const bound = await this.#bindCall(scope, request, crypto.randomUUID())
    if (!('binding' in bound)) return bound
    return this.#send(request, bound.binding, bound.holders)
  }

  /**
   * Binds a new call to the conversation's page load, following a rebinding (a reload, another tab) a few
   * times; or the outcome when there is no page load to call.
   */
  async #bindCall(
    scope: { userId: string; conversationId: string; toolCallId: string },
    request: PageRequest,
    callId: string,
  ): Promise<Bound | RequestOutcome> {
    // A copy of the binding is only a guess: what it leads to is checked against the store before it counts,
    // and the store binds the call only while the binding still holds.
    const guess = this.#store.bindCall ? this.#cachedPage(scope.conversationId)?.clientId : undefined
    let guessed = guess !== undefined
    let clientId = guess ?? (await this.#store.getActiveClient(scope.conversationId))
    /** The store's binding, the copy dropped (it was out of date, or it led nowhere). */
    const reread = async () => {
      guessed = false
      this.#forgetPage(scope.conversationId)
      return this.#store.getActiveClient(scope.conversationId)
    }
    for (let attempt = 1; ; attempt++) {
      if (request.signal?.aborted) return { callId, clientId, result: CANCELLED_RESULT, timedOut: false }
      if (!clientId) return { callId, clientId, result: NO_PAGE_RESULT, timedOut: false }
      // The page load's sockets are here, or (shared mode) on the instance that claims it. A socket of another
      // page load of the conversation (an old tab) never counts: the call goes to the bound page load.
      const here = this.#carriers(scope.conversationId, clientId).length > 0
      const connectingHere = this.#unknown(scope.conversationId).length > 0
      // Where else it may be is looked up while the store binds the call: two round trips at once.
      const located = here
        ? undefined
        : this.#coordinator.locate(scope.conversationId, clientId, connectingHere)
      if (!here && !located && !connectingHere) {
        if (!guessed) return { callId, clientId, result: NO_PAGE_RESULT, timedOut: false }
        clientId = await reread()
        continue
      }
      const bound = await this.#tryBind(this.#newBinding(scope, request, callId, clientId), located)
      if (bound !== 'rebound') return bound
      // Rebound meanwhile (a reload, another tab): the call goes to the page load it is bound to now.
      const current = await reread()
      if (current === clientId || attempt >= MAX_BIND_ATTEMPTS)
        return { callId, clientId, result: NO_PAGE_RESULT, timedOut: false }
      clientId = current
    }
  }

  /** A pending call's binding to a page load, due within the deadline. */
  #newBinding(
    scope: { userId: string; conversationId: string; toolCallId: string },
    request: PageRequest,
    callId: string,
    clientId: string,
  ): CallBinding {
    const instance = this.#coordinator.instance
    const now = this.#clock.now()
    return {
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
      ...(instance === undefined ? {} : { instance }),
    }
  }

  /**
   * Stores the binding (only while the conversation is still bound to its page load, when the store can
   * check that) and learns which instances may hold the page load: `'rebound'` when the conversation moved
   * to another page load meanwhile.
   */
  async #tryBind(
    binding: CallBinding,
    located: Promise<Located> | undefined,
  ): Promise<Bound | RequestOutcome | 'rebound'> {
    const { id: callId, clientId } = binding
    const unreachable = (error: unknown): RequestOutcome => {
      this.#log(`[relay] the coordinator is unreachable: ${escapeForLog(error)}`)
      return { callId, clientId, result: COORDINATOR_UNAVAILABLE_RESULT, timedOut: false }
    }
    if (!this.#store.bindCall) {
      let holders: string[] | undefined
      if (located) {
        const looked = await located
        if ('error' in looked) return unreachable(looked.error)
        if (!looked.found) return { callId, clientId, result: NO_PAGE_RESULT, timedOut: false }
        holders = looked.found
      }
      await this.#store.insertCall(binding)
      return { binding, holders }
    }
    // The store binds the call only while the conversation is still bound to this page load.
    if (!(await this.#store.bindCall(binding))) return 'rebound'
    if (!located) return { binding, holders: undefined }
    const looked = await located
    if ('found' in looked && looked.found) return { binding, holders: looked.found }
    // Bound, but no instance can be reached for the page load: the binding is withdrawn, nothing was sent.
    await this.#store.settleCall(callId, 'timed_out').catch(() => false)
    if ('error' in looked) return unreachable(looked.error)
    return { callId, clientId, result: NO_PAGE_RESULT, timedOut: false }
  }

  /** Sends a bound call to its page load and waits for the answer, the deadline or the abort. */
  #send(request: PageRequest, binding: CallBinding, holders: string[] | undefined): Promise<RequestOutcome> {
    const { id: callId, clientId } = binding
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
      const timeOut = (result?: ToolResult): void => {
        this.#timeOut(binding, result).catch((error: unknown) => {
          // The store could not record the timeout: the agent still gets it, and is never left waiting.
          this.#log(`[relay] could not record a timeout: ${escapeForLog(error)}`)
          this.#take(binding.id)?.resolve(this.#timedOut(binding, result))
        })
      }
      const timer = this.#clock.setTimeout(() => timeOut(), this.#deadlineMs)
      // An aborted request is withdrawn as a deadline is: the binding settles and the page gets a `cancel`.
      const signal = request.signal
      const onAbort = () => timeOut(CANCELLED_RESULT)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiters.set(callId, {
        resolve: (outcome) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(outcome)
        },
        timer,
        secrets: request.kind === 'call' ? (request.secrets ?? []) : [],
      })
      this.#sendTo(binding.conversationId, clientId, message, holders, this.callSecrets(callId))
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
    this.#detach()
    for (const conn of this.#conns) {
      conn.open = false
      // The page loads this instance held are free at once: their next reconnect lands elsewhere.
      for (const clientId of conn.clientIds) this.#coordinator.releasePage(clientId)
    }
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

  /**
   * Shared mode: the call this instance waits for was settled by another instance. Timed out there (a late
   * result): the timeout here too. Answered there: the answer is on its way; if it has not come within
   * {@link LOST_ANSWER_GRACE_MS}, the call resolves with {@link LOST_RESULT}, so nothing waits forever.
   */
  async #settledElsewhere(binding: CallBinding): Promise<void> {
    const row = await this.#store.getCall(binding.id).catch(() => undefined)
    if (row?.state === 'timed_out') {
      this.#take(binding.id)?.resolve(this.#timedOut(binding))
      return
    }
    const waiter = this.#waiters.get(binding.id)
    if (!waiter) return
    waiter.timer = this.#clock.setTimeout(() => {
      this.#take(binding.id)?.resolve({
        callId: binding.id,
        clientId: binding.clientId,
        result: LOST_RESULT,
        timedOut: false,
      })
    }, LOST_ANSWER_GRACE_MS)
  }

  /** The outcome of a call withdrawn at its deadline (or, with `result`, by its aborted signal). */
  #timedOut(binding: CallBinding, result: ToolResult = TIMEOUT_RESULT): RequestOutcome {
    return { callId: binding.id, clientId: binding.clientId, result, timedOut: result === TIMEOUT_RESULT }
  }

  #emit<K extends keyof RelayEvents>(event: K, payload: RelayEvents[K]): void {
    for (const listener of this.#listeners[event]) listener(payload)
  }

  #isOpen(conversationId: string, clientId: string): boolean {
    for (const conn of this.#conns)
      if (conn.conversationId === conversationId && conn.clientIds.has(clientId)) return true
    return false
  }

  /** Sockets of the conversation known to carry `clientId`. */
  #carriers(conversationId: string, clientId: string): Conn[] {
    return [...this.#conns].filter((c) => c.conversationId === conversationId && c.clientIds.has(clientId))
  }

  /** Sockets of the conversation that have not said yet which page load they carry (reconnected ones). */
  #unknown(conversationId: string): Conn[] {
    return [...this.#conns].filter((c) => c.conversationId === conversationId && c.clientIds.size === 0)
  }

  /**
   * Where a message for `clientId` goes here: the sockets known to carry it, else the conversation's sockets that
   * have not said which page load they carry (the page ignores a message for another page load). Never a socket
   * known to carry another page load: after a reload, the old tab's socket is not the way to the new one.
   */
  #targets(conversationId: string, clientId: string): Conn[] {
    const known = this.#carriers(conversationId, clientId)
    return known.length > 0 ? known : this.#unknown(conversationId)
  }

  /** Takes this instance out of the conversation's set of unknown page connections once none is left here. */
  #leaveUnknown(conversationId: string): void {
    if (this.#unknown(conversationId).length === 0) this.#coordinator.leaveConnecting(conversationId)
  }

  /** True when a socket here carries `clientId`, or (shared mode) another instance claims it. */
  async #isOpenAnywhere(conversationId: string, clientId: string): Promise<boolean> {
    if (this.#isOpen(conversationId, clientId)) return true
    return this.#coordinator.heldElsewhere(clientId)
  }

  /**
   * Writes `message` to the page load's sockets here; when no socket here is known to carry it, the coordinator
   * hands it to the other instances that may hold it (`holders`, else looked up: see {@link Coordinator.locate}),
   * a call with its `secrets`.
   */
  #sendTo(
    conversationId: string,
    clientId: string,
    message: AgentToPageMessage,
    holders?: string[],
    secrets: readonly string[] = [],
  ): void {
    const targets = this.#targets(conversationId, clientId)
    for (const conn of targets) conn.send(message)
    if (this.#carriers(conversationId, clientId).length > 0) return
    const call = message.type === 'call' && secrets.length > 0 ? { id: message.id, secrets } : undefined
    this.#coordinator.deliver(conversationId, clientId, message, holders, call)
  }

  /**
   * A call another instance waits for was settled here (a result accepted, or, with `timedOut`, a late
   * result that timed it out): the outcome goes to that instance.
   */
  #forward(binding: CallBinding, result: ToolResult, timedOut = false): void {
    this.#coordinator.returnOutcome(binding.instance, () => {
      const secrets = this.#secretsOf(`call:${binding.id}`, true)
      return {
        callId: binding.id,
        clientId: binding.clientId,
        // Masked before it rests in Redis; a describe's answer is the tool's definition, read as it is.
        result: binding.kind === 'describe' ? result : maskResult(result, secrets),
        ...(timedOut ? { timedOut } : {}),
      }
    })
  }

  /** The outcome of a call this instance waits for, settled on another instance. */
  async #outcome(message: Outcome): Promise<void> {
    // The holder settled the call in the store; a repeat of this delivery finds no waiter and does nothing.
    const waiter = this.#take(message.callId)
    if (!waiter) return
    const result = message.result
    if (result.status === 'needs_confirmation' && waiter.secrets.length > 0) {
      // Its answer may be POSTed here: masked with them before it crosses to the page's instance.
      this.#keep(`confirm:${result.confirmId}`, waiter.secrets, this.#confirmTtlMs)
      // The holder had not the call's secrets: they are cut out of the stored summary here.
      const binding = await this.#store.getConfirm(result.confirmId).catch(() => undefined)
      const summary = binding && maskText(scrub(binding.summary, waiter.secrets))
      if (binding && summary !== binding.summary)
        await this.#store.updateConfirmSummary(binding.confirmId, summary as string).catch(() => {})
    }
    waiter.resolve({
      callId: message.callId,
      clientId: message.clientId,
      result,
      timedOut: message.timedOut === true,
    })
  }

  /** Keeps `secrets` under `key` for `ms` (see {@link Relay.#kept}); the oldest go first once out of time or past 10 000. */
  #keep(key: string, secrets: readonly string[], ms: number): void {
    const now = this.#clock.now()
    for (const [old, kept] of this.#kept) {
      if (kept.until > now && this.#kept.size < 10_000) break
      this.#kept.delete(old)
    }
    this.#kept.set(key, { secrets, until: now + ms })
  }

  /** The secrets kept under `key` while their time lasts (else none); `take` forgets them. */
  #secretsOf(key: string, take = false): readonly string[] {
    const kept = this.#kept.get(key)
    if (take) this.#kept.delete(key)
    return kept && kept.until > this.#clock.now() ? kept.secrets : []
  }

  async #expire(conversationId: string, clientId: string): Promise<void> {
    const expired = await this.#store.expireConfirms(conversationId, clientId)
    // Those asked again on the next page load are not over: the agent is told of the others only.
    const bindings = this.#decisions ? await this.#decisions.gone(conversationId, expired) : expired
    if (bindings.length > 0) this.#emit('expired', { conversationId, bindings })
  }

  async #timeOut(binding: CallBinding, result: ToolResult = TIMEOUT_RESULT): Promise<void> {
    // Only the side that settles the call (this timeout, or the page's result) takes its waiter.
    if (!(await this.#store.settleCall(binding.id, 'timed_out'))) {
      if (this.#waiters.has(binding.id))
        await this.#coordinator.settledByAnother(() => this.#settledElsewhere(binding))
      return
    }
    const waiter = this.#take(binding.id)
    const cancel: AgentToPageMessage = {
      protocol: PROTOCOL_VERSION,
      type: 'cancel',
      clientId: binding.clientId,
      id: binding.id,
    }
    this.#sendTo(binding.conversationId, binding.clientId, cancel)
    if (waiter) waiter.resolve(this.#timedOut(binding, result))
    // Timed out here by a late result: the instance that waits gets the timeout now, not at its own timer.
    else this.#forward(binding, result, result === TIMEOUT_RESULT)
  }
}
