import type { AgentToPageMessage } from '@toolmark/protocol'
import type {
  BroadcastMessage,
  Cluster,
  ClusterEvent,
  ClusterMessage,
  MovedStream,
} from '../relay/cluster.ts'
import { type Clock, systemClock } from '../shared/clock.ts'
import { escapeForLog } from '../shared/log.ts'
import {
  CLAIM_WAIT_MS,
  type Coordinator,
  type HandedPost,
  LEASE_MS,
  type Located,
  type Outcome,
  type PageHost,
  type StreamHost,
  TAKE_TIMEOUT_MS,
  type TurnRun,
} from './coordinator.ts'

/** The cluster key of a conversation's running turn (held by the instance that runs it). */
export const turnKey = (conversationId: string): string => `turn:${conversationId}`
/** The cluster key of a page load's claim (held by the instance with its connection). */
const clientKey = (clientId: string) => `client:${clientId}`
/**
 * The cluster set of the instances holding a page connection of the conversation that has not said yet which
 * page load it carries (a socket or stream that reconnected: the page does not send its manifest again).
 */
const unknownKey = (conversationId: string) => `unknown:${conversationId}`
/** The cluster key of a page stream's claim (held by the instance with the stream, its value the stream's user). */
const streamKey = (id: string) => `stream:${id}`

/** Polls of a stream's claim while it is waited for (see {@link CLAIM_WAIT_MS}). */
const CLAIM_POLL_MS = 100

/**
 * How often a turn waiting for another instance's turn of the same conversation asks again, when it was not
 * told that turn ended (the message was lost, or the instance died and its claim has to lapse).
 */
const TURN_POLL_MS = 1000

/** What {@link clusterCoordinator} is built from besides the cluster. */
export interface ClusterCoordinatorOptions {
  /** Where failures to reach the other instances are logged (already masked). Default `console.warn`. */
  log?: (line: string) => void
  /** Timers of a handed-over page load (tests use a manual clock). Default the system clock. */
  clock?: Clock
}

/**
 * The {@link Coordinator} of shared mode: several instances work as one through a {@link Cluster} (Redis, with
 * `createRedisCluster`). It holds everything that only exists because there are other instances: the claims of
 * the page loads held here, where a handed-over page load went, who runs a conversation's turn and who waits for
 * it, which conversations' chat events reach this instance.
 */
export class ClusterCoordinator implements Coordinator {
  readonly #cluster: Cluster
  readonly #log: (line: string) => void
  /** Conversation → the watch of its chat events started here (settled, never rejecting). */
  readonly #watching = new Map<string, Promise<void>>()
  readonly #snapshotAsks: Array<(conversationId: string) => void> = []
  /** The conversations whose turn runs here (this instance holds their turn claim). */
  readonly #running = new Set<string>()
  /** Conversation → the instances to tell when its turn running here ends. */
  readonly #watchers = new Map<string, Set<string>>()
  /** Conversation → the wake-ups of the turns here waiting for its turn on another instance. */
  readonly #waiting = new Map<string, Set<() => void>>()
  readonly #clock: Clock
  /** The relay's page connections and handlers, once attached. */
  #pages: PageHost | undefined
  /** Page loads whose connection was handed over to another instance lately: clientId → that instance. */
  readonly #moved = new Map<string, string>()
  /** The HTTP transport's page streams and handlers, once attached. */
  #streams: StreamHost | undefined
  /** Streams handed over to another instance lately: id → that instance and the stream's user. */
  readonly #movedStreams = new Map<string, { instance: string; userId: string }>()
  /** POSTs handed to another instance, waiting for its `posted` (by reply id). */
  readonly #handedOn = new Map<string, (found: boolean) => void>()
  /** Resumes waiting for the stream's old instance to hand it over (`taken`, by reply id). */
  readonly #taking = new Map<string, (stream: MovedStream | undefined) => void>()

  constructor(cluster: Cluster, options: ClusterCoordinatorOptions = {}) {
    this.#cluster = cluster
    this.#log = options.log ?? ((line) => console.warn(line))
    this.#clock = options.clock ?? systemClock
    cluster.onMessage((message) => this.#fromCluster(message))
    cluster.onBroadcast?.((message) => this.#fromBroadcast(message))
  }

  get instance(): string {
    return this.#cluster.instance
  }

  attachPages(host: PageHost): () => void {
    this.#pages = host
    const cluster = this.#cluster
    // Renews the claims of the page loads this instance's connections carry.
    const heartbeat = setInterval(() => {
      for (const conn of host.connections()) {
        for (const clientId of conn.clientIds) cluster.renew(clientKey(clientId))
        if (conn.clientIds.size === 0) cluster.join(unknownKey(conn.conversationId))
      }
    }, LEASE_MS / 3)
    ;(heartbeat as { unref?: () => void }).unref?.()
    return () => clearInterval(heartbeat)
  }

  // Shared store: another instance's calls are pending too, so none is timed out here; each waiting instance
  // times out its own, and a result after a call's deadline is refused as late.
  async earlierCalls(): Promise<void> {}

  holdPages(clientIds: Iterable<string>): void {
    for (const clientId of clientIds) this.#cluster.hold(clientKey(clientId))
  }

  adoptPages(clientIds: Iterable<string>): void {
    for (const clientId of clientIds) {
      this.#moved.delete(clientId)
      this.#cluster.hold(clientKey(clientId))
    }
  }

  releasePage(clientId: string): void {
    this.#cluster.release(clientKey(clientId))
  }

  joinConnecting(conversationId: string): void {
    this.#cluster.join(unknownKey(conversationId))
  }

  leaveConnecting(conversationId: string): void {
    this.#cluster.leave(unknownKey(conversationId))
  }

  handOverPages(clientIds: Iterable<string>, to: string, openHere: (clientId: string) => boolean): void {
    for (const clientId of clientIds) {
      // What still comes here for the page load goes on to `to` (which claims it at once), for a while;
      // then this instance's old claim is given up, unless `to` has it by then.
      this.#moved.set(clientId, to)
      const timer = this.#clock.setTimeout(() => {
        if (this.#moved.get(clientId) !== to) return
        this.#moved.delete(clientId)
        if (!openHere(clientId)) this.#cluster.release(clientKey(clientId))
      }, LEASE_MS)
      ;(timer as { unref?: () => void }).unref?.()
    }
  }

  async locate(conversationId: string, clientId: string, connectingHere: boolean): Promise<Located> {
    const cluster = this.#cluster
    try {
      const [claim, unknown] = await Promise.all([
        cluster.holder(clientKey(clientId)),
        cluster.members(unknownKey(conversationId)),
      ])
      const instances = new Set(unknown)
      if (claim) instances.add(claim.instance)
      const moved = this.#moved.get(clientId)
      if (moved) instances.add(moved)
      instances.delete(cluster.instance)
      return { found: instances.size > 0 || connectingHere ? [...instances] : undefined }
    } catch (error) {
      return { error }
    }
  }

  async heldElsewhere(clientId: string): Promise<boolean> {
    try {
      const holder = await this.#cluster.holder(clientKey(clientId))
      return holder !== undefined && holder.instance !== this.#cluster.instance
    } catch {
      return true // unknown: a confirmation is never expired on a guess
    }
  }

  async connectingElsewhere(conversationId: string): Promise<boolean> {
    try {
      return (await this.#cluster.members(unknownKey(conversationId))).length > 0
    } catch {
      return false // unknown: the message goes on without waiting
    }
  }

  deliver(
    conversationId: string,
    clientId: string,
    message: AgentToPageMessage,
    to?: readonly string[],
    call?: { id: string; secrets: readonly string[] },
  ): void {
    const cluster = this.#cluster
    void (async () => {
      let instances = to
      if (!instances) {
        const looked = await this.locate(conversationId, clientId, false)
        if ('error' in looked) throw looked.error
        instances = looked.found ?? []
      }
      await Promise.all(
        instances.map((instance) =>
          cluster.send(instance, {
            kind: 'send',
            conversationId,
            clientId,
            message,
            ...(call ? { call } : {}),
          }),
        ),
      )
    })().catch((error: unknown) =>
      this.#log(`[relay] could not hand a message to the page's instance: ${escapeForLog(error)}`),
    )
  }

  returnOutcome(waiter: string | undefined, outcome: () => Outcome): void {
    if (!waiter || waiter === this.#cluster.instance) return
    void this.#cluster
      .send(waiter, { kind: 'outcome', ...outcome() })
      .catch((error: unknown) =>
        this.#log(`[relay] could not hand an answer to the waiting instance: ${escapeForLog(error)}`),
      )
  }

  settledByAnother(follow: () => Promise<void>): Promise<void> {
    return follow()
  }

  pageChanged(conversationId: string): void {
    this.#cluster.broadcast?.({ kind: 'page', conversationId }).catch((error: unknown) => {
      this.#log(`[relay] could not tell the other instances of a page change: ${escapeForLog(error)}`)
    })
  }

  attachStreams(host: StreamHost): () => void {
    this.#streams = host
    const cluster = this.#cluster
    // This instance's streams are claimed (and the claims renewed) so other instances find them.
    const heartbeat = setInterval(() => {
      for (const stream of host.streams()) cluster.renew(streamKey(stream.id), stream.userId)
    }, LEASE_MS / 3)
    ;(heartbeat as { unref?: () => void }).unref?.()
    return () => clearInterval(heartbeat)
  }

  holdStream(streamId: string, userId: string): void {
    this.#cluster.hold(streamKey(streamId), userId)
  }

  releaseStream(streamId: string): void {
    this.#cluster.release(streamKey(streamId))
  }

  async streamElsewhere(streamId: string): Promise<{ instance: string; userId: string } | undefined> {
    const holder = await this.#cluster.holder(streamKey(streamId)).catch(() => undefined)
    return holder && holder.instance !== this.#cluster.instance
      ? { instance: holder.instance, userId: holder.value }
      : undefined
  }

  async findStream(
    streamId: string,
  ): Promise<{ found: { instance: string; userId: string } | undefined; unsure: boolean }> {
    const gone = this.#movedStreams.get(streamId)
    if (gone) return { found: gone, unsure: false }
    const cluster = this.#cluster
    for (let waited = 0; ; waited += CLAIM_POLL_MS) {
      const holder = await cluster.holder(streamKey(streamId))
      const found = holder && { instance: holder.instance, userId: holder.value }
      if (found || !cluster.settling()) return { found, unsure: false }
      if (waited >= CLAIM_WAIT_MS) return { found, unsure: true }
      await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS))
    }
  }

  takeStream<T>(
    from: string,
    take: { streamId: string; userId: string; conversationId: string },
    adopt: (stream: MovedStream) => T,
  ): Promise<T | undefined> {
    const cluster = this.#cluster
    const id = crypto.randomUUID()
    return new Promise<T | undefined>((resolve) => {
      const settle = (moved: MovedStream | undefined) => {
        this.#clock.clearTimeout(timer)
        this.#taking.delete(id)
        // Made here at once, before any message that followed the stream here is handled.
        resolve(moved && adopt(moved))
      }
      const timer = this.#clock.setTimeout(() => settle(undefined), TAKE_TIMEOUT_MS)
      this.#taking.set(id, settle)
      cluster
        .send(from, { kind: 'take', ...take, reply: { instance: cluster.instance, id } })
        .catch((error: unknown) => {
          this.#log(`[bridge-http] could not resume a stream: ${escapeForLog(String(error))}`)
          settle(undefined)
        })
    })
  }

  postTo(instance: string, post: HandedPost): Promise<boolean> {
    const cluster = this.#cluster
    const id = crypto.randomUUID()
    return new Promise<boolean>((resolve, reject) => {
      const timer = this.#clock.setTimeout(() => settle(true), LEASE_MS)
      const forget = () => {
        this.#clock.clearTimeout(timer)
        this.#handedOn.delete(id)
      }
      const settle = (found: boolean) => {
        forget()
        resolve(found)
      }
      this.#handedOn.set(id, settle)
      cluster
        .send(instance, { kind: 'post', ...post, reply: { instance: cluster.instance, id } })
        .catch((error: unknown) => {
          forget()
          reject(error)
        })
    })
  }

  async endStream(instance: string, streamId: string, userId: string): Promise<void> {
    await this.#cluster.send(instance, { kind: 'end', streamId, userId })
  }

  ping(): Promise<void> {
    return this.#cluster.ping()
  }

  /**
   * Hands a stream of this instance over to the instance where it resumes (`take`); what still arrives here for
   * it follows it for {@link LEASE_MS}, then this instance's old claim is given up.
   */
  #give(message: { streamId: string; userId: string; conversationId: string; reply: { instance: string } }) {
    const to = message.reply.instance
    const stream = this.#streams?.give(message.streamId, message.userId, message.conversationId, to)
    if (!stream) return {}
    this.#movedStreams.set(stream.id, { instance: to, userId: message.userId })
    const timer = this.#clock.setTimeout(() => {
      this.#movedStreams.delete(stream.id)
      if (!this.#streams?.has(stream.id)) this.#cluster.release(streamKey(stream.id))
    }, LEASE_MS)
    ;(timer as { unref?: () => void }).unref?.()
    return { stream }
  }

  /** Messages between instances about page streams. */
  async #aboutStreams(message: ClusterMessage): Promise<void> {
    const cluster = this.#cluster
    if (message.kind === 'posted') {
      this.#handedOn.get(message.id)?.(message.found)
      return
    }
    if (message.kind === 'taken') {
      this.#taking.get(message.id)?.(message.stream)
      return
    }
    if (message.kind === 'take') {
      await cluster.send(message.reply.instance, {
        kind: 'taken',
        id: message.reply.id,
        ...this.#give(message),
      })
      return
    }
    if (message.kind !== 'post' && message.kind !== 'end') return
    const streams = this.#streams
    if (!streams) return
    const gone = this.#movedStreams.get(message.streamId)
    // A message for a stream that moved on follows it (the instance it moved to answers the POST's reply).
    if (gone && !streams.has(message.streamId)) return cluster.send(gone.instance, message)
    if (message.kind === 'end') {
      // The page POSTed a message over the protocol's size limit to another instance.
      streams.end(message.streamId, message.userId)
      return
    }
    const { kind: _, reply, ...post } = message
    const found = await streams.post(post)
    if (reply) await cluster.send(reply.instance, { kind: 'posted', id: reply.id, found })
  }

  #fromBroadcast(message: BroadcastMessage): void {
    if (message.kind === 'page') this.#pages?.pageChanged(message.conversationId)
  }

  publishEvent(conversationId: string, event: ClusterEvent): void {
    this.#cluster.publish(conversationId, event)
  }

  onEvent(handler: (conversationId: string, event: ClusterEvent) => void): void {
    this.#cluster.onEvent(handler)
  }

  watchEvents(conversationId: string): Promise<void> {
    const watch = this.#cluster.watch
    // A cluster that cannot watch sends every event everywhere.
    const watching = watch ? watch.call(this.#cluster, conversationId) : Promise.resolve()
    this.#watching.set(
      conversationId,
      watching.catch(() => {}),
    )
    return watching
  }

  unwatchEvents(conversationId: string): void {
    this.#watching.delete(conversationId)
    this.#cluster.unwatch?.(conversationId)
  }

  askSnapshot(conversationId: string): Promise<boolean> {
    return (async () => {
      await this.#watching.get(conversationId)
      const holder = await this.#cluster.holder(turnKey(conversationId))
      if (!holder || holder.instance === this.#cluster.instance) return false
      await this.#cluster.send(holder.instance, { kind: 'snapshot-ask', conversationId })
      return true
    })()
  }

  onSnapshotAsk(handler: (conversationId: string) => void): void {
    this.#snapshotAsks.push(handler)
  }

  /**
   * Runs `task` while this instance holds the conversation's turn claim. A turn running on another instance is
   * waited for; one whose instance died is given up when its claim lapses (`LEASE_MS`). An unreachable
   * coordinator does not hold turns up: they run as on one instance.
   */
  async runTurn(conversationId: string, task: () => Promise<void>, run: TurnRun): Promise<void> {
    const cluster = this.#cluster
    const key = turnKey(conversationId)
    let waited = false
    for (;;) {
      if (run.signal.aborted) return
      let won: boolean
      try {
        won = await cluster.claim(key)
      } catch (error) {
        this.#log(`[agent] turn runs without the cluster's claim: ${escapeForLog(error)}`)
        return task()
      }
      if (won) break
      waited = true
      await this.#awaitTurnEnd(conversationId, run.signal)
    }
    this.#running.add(conversationId)
    // The instance that ran the turn before this one said not busy when it finished.
    if (waited) run.waited()
    const renew = setInterval(() => cluster.renew(key), LEASE_MS / 3)
    ;(renew as { unref?: () => void }).unref?.()
    try {
      await task()
    } finally {
      clearInterval(renew)
      this.#running.delete(conversationId)
      // Given up first: a watcher told below reads its message after Redis ran the release (one connection).
      cluster.release(key)
      const watchers = this.#watchers.get(conversationId)
      this.#watchers.delete(conversationId)
      for (const instance of watchers ?? []) this.#tellTurnEnded(instance, conversationId)
    }
  }

  async turnRunning(conversationId: string): Promise<boolean> {
    try {
      return (await this.#cluster.holder(turnKey(conversationId))) !== undefined
    } catch {
      return false // the coordinator is unreachable: only this instance's turns are known
    }
  }

  /**
   * Waits until the instance running the conversation's turn says it ended (`watch-turn`, answered by
   * `turn-ended`), or {@link TURN_POLL_MS} at most, or until `signal` aborts: the caller claims the conversation
   * again either way, so a lost or repeated message only costs a claim.
   */
  async #awaitTurnEnd(conversationId: string, signal: AbortSignal): Promise<void> {
    const cluster = this.#cluster
    let wake: () => void = () => {}
    const woken = new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake(), TURN_POLL_MS)
      wake = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', wake)
        const wakes = this.#waiting.get(conversationId)
        wakes?.delete(wake)
        if (wakes?.size === 0) this.#waiting.delete(conversationId)
        resolve()
      }
    })
    signal.addEventListener('abort', wake, { once: true })
    // Listening before asking: an answer that comes back at once is not missed.
    const wakes = this.#waiting.get(conversationId) ?? new Set()
    this.#waiting.set(conversationId, wakes)
    wakes.add(wake)
    try {
      const holder = await cluster.holder(turnKey(conversationId))
      // Nobody holds it any more: claim again at once.
      if (!holder) wake()
      else if (holder.instance !== cluster.instance)
        await cluster.send(holder.instance, {
          kind: 'watch-turn',
          conversationId,
          instance: cluster.instance,
        })
    } catch (error) {
      this.#log(`[agent] could not ask for the end of another instance's turn: ${escapeForLog(error)}`)
    }
    await woken
  }

  #tellTurnEnded(instance: string, conversationId: string): void {
    this.#cluster.send(instance, { kind: 'turn-ended', conversationId }).catch((error: unknown) => {
      // The waiting instance asks again at its next poll.
      this.#log(`[agent] could not tell another instance a turn ended: ${escapeForLog(error)}`)
    })
  }

  /** Messages between instances about page loads, turns and chat events; a repeat changes nothing. */
  async #fromCluster(message: ClusterMessage): Promise<void> {
    if (
      message.kind === 'post' ||
      message.kind === 'posted' ||
      message.kind === 'take' ||
      message.kind === 'taken' ||
      message.kind === 'end'
    ) {
      await this.#aboutStreams(message)
    } else if (message.kind === 'send') {
      const pages = this.#pages
      if (!pages) return
      if (message.call) pages.keepCallSecrets(message.call.id, message.call.secrets)
      // Only to connections here, or to the instance the page connection was handed over to: a message is handed
      // on at most twice, never back and forth.
      const delivered = pages.deliverHere(message.conversationId, message.clientId, message.message)
      const moved = this.#moved.get(message.clientId)
      if (!delivered && moved && !message.again) await this.#cluster.send(moved, { ...message, again: true })
    } else if (message.kind === 'outcome') {
      // The holder settled the call in the store; a repeat of this delivery finds no waiter and does nothing.
      const { kind: _, ...outcome } = message
      await this.#pages?.outcome(outcome)
    } else if (message.kind === 'snapshot-ask') {
      for (const handler of this.#snapshotAsks) handler(message.conversationId)
    } else if (message.kind === 'watch-turn') {
      if (!this.#running.has(message.conversationId)) {
        this.#tellTurnEnded(message.instance, message.conversationId)
        return
      }
      const watchers = this.#watchers.get(message.conversationId) ?? new Set()
      this.#watchers.set(message.conversationId, watchers)
      watchers.add(message.instance)
    } else if (message.kind === 'turn-ended') {
      for (const wake of [...(this.#waiting.get(message.conversationId) ?? [])]) wake()
    }
  }
}

/** A {@link ClusterCoordinator} over `cluster`: what a server passed a `cluster` uses. */
export const clusterCoordinator = (cluster: Cluster, options?: ClusterCoordinatorOptions): Coordinator =>
  new ClusterCoordinator(cluster, options)
