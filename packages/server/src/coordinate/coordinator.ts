import type { ToolResult } from '@toolmark/core'
import type { AgentToPageMessage } from '@toolmark/protocol'
import type { ClusterEvent, MovedStream } from '../relay/cluster.ts'

/** How long a claim (a page load, a page stream, a running turn) lives without a heartbeat; renewed every third of it. */
export const LEASE_MS = 15_000

/** After this instance's coordinator came back, how long a POST waits for its stream's claim to be made again. */
export const CLAIM_WAIT_MS = 6_000
/** How long a stream resuming on another instance waits for its old instance to hand it over. */
export const TAKE_TIMEOUT_MS = 5_000

/** What {@link Coordinator.runTurn} needs of the agent besides the turn itself. */
export interface TurnRun {
  /** Aborted when the agent closes: a turn still waiting for another instance's turn then never runs. */
  signal: AbortSignal
  /** Called before the turn runs when it had to wait for another instance's turn (that one said not busy). */
  waited(): void
}

/** A call's outcome on its way back to the instance that waits for it (settled on another one). */
export interface Outcome {
  callId: string
  clientId: string
  /** Masked as the database's copy is (a describe's answer excepted). */
  result: ToolResult
  /** The call timed out (a late result timed it out on another instance). */
  timedOut?: boolean
}

/** What the relay gives the coordinator: its page connections, and where messages from other instances land. */
export interface PageHost {
  /** The page connections open here: their conversation and the page loads they carry (empty: not said yet). */
  connections(): Iterable<{ conversationId: string; clientIds: ReadonlySet<string> }>
  /** Writes a bridge message to the connections here that lead to the page load; false when none does. */
  deliverHere(conversationId: string, clientId: string, message: AgentToPageMessage): boolean
  /** Keeps the secrets of a call another instance handed to a page here, to mask its result with. */
  keepCallSecrets(callId: string, secrets: readonly string[]): void
  /** The outcome of a call this instance waits for, settled on another instance. */
  outcome(outcome: Outcome): Promise<void>
  /** Another instance wrote the conversation's page binding or manifest: a copy kept here is out of date. */
  pageChanged(conversationId: string): void
}

/** A page's POST for a stream held by another instance, on its way there (see {@link Coordinator.postTo}). */
export interface HandedPost {
  streamId: string
  userId: string
  /** The message, masked as the database's copy is; empty with `refused`. */
  body: string
  /** The message was over the protocol's inbound limits: the holder rejects it with this detail. */
  refused?: string
}

/** What the bridge's HTTP transport gives the coordinator: its page streams, and where messages about them land. */
export interface StreamHost {
  /** The page streams open here and their users (their claims are renewed while they are open). */
  streams(): Iterable<{ id: string; userId: string }>
  /** True while the stream is open here. */
  has(streamId: string): boolean
  /** A POST another instance handed on: handled by the stream here; false when there is no such stream of that user. */
  post(post: HandedPost): Promise<boolean>
  /** Closes the stream here, when it is that user's (the page POSTed an oversized message to another instance). */
  end(streamId: string, userId: string): void
  /**
   * Hands a stream of this instance over to instance `to`, where it resumes: it leaves here, its page loads move
   * with it. Undefined when there is no such stream of that user and conversation.
   */
  give(streamId: string, userId: string, conversationId: string, to: string): MovedStream | undefined
}

/** Where a page load may be held, besides here (see {@link Coordinator.locate}). */
export type Located =
  /** The other instances that may hold it; undefined when none does, here or elsewhere. */
  | { found: string[] | undefined }
  /** The other instances cannot be reached. */
  | { error: unknown }

/**
 * The one seam of shared mode: everything one server instance needs of the others goes through it. Relay,
 * agent and HTTP call it the same way on one instance or many; {@link localCoordinator} serves one process,
 * `clusterCoordinator` several instances over a `Cluster` (Redis).
 *
 * The methods serve five concerns: a message to a page load wherever it is held, a call's outcome back to whoever
 * waits, a page's POST to the instance holding its HTTP stream, chat events to the chat streams wherever they are
 * open, and one turn of a conversation at a time.
 */
export interface Coordinator {
  /** This instance's id among several, stored with a call so its outcome finds the way back; none on one instance. */
  readonly instance: string | undefined

  /**
   * Fans a chat event out to the other instances with a chat stream of the conversation open (none on one
   * instance). Never throws: a failure is logged.
   */
  publishEvent(conversationId: string, event: ClusterEvent): void
  /** Adds a handler of the chat events other instances publish. */
  onEvent(handler: (conversationId: string, event: ClusterEvent) => void): void
  /**
   * From now on this instance gets the chat events other instances publish for the conversation (a chat stream of
   * it is open here). Resolves once every event published afterwards reaches it; rejects when the other instances
   * cannot be reached (they are watched again once they can).
   */
  watchEvents(conversationId: string): Promise<void>
  /** Stops what {@link Coordinator.watchEvents} started (the conversation's last chat stream here closed). */
  unwatchEvents(conversationId: string): void
  /**
   * Asks the instance running the conversation's turn for its message in progress, after the watch of the
   * conversation's events: it answers with a `snapshot` event. Undefined when no other instance can run it
   * (nothing is asked). Otherwise resolves true once asked, false when no other instance runs the turn now.
   */
  askSnapshot(conversationId: string): Promise<boolean> | undefined
  /** Adds the handler of another instance's ask for the message in progress (answer with a `snapshot` event). */
  onSnapshotAsk(handler: (conversationId: string) => void): void

  /**
   * Runs `task` as the conversation's only turn across every instance: after a turn of it running on another
   * instance ended (or that instance died and its claim lapsed). On one instance it runs at once (the agent
   * queues a conversation's turns itself). When the instances cannot be reached, it runs at once too.
   */
  runTurn(conversationId: string, task: () => Promise<void>, run: TurnRun): Promise<void>
  /**
   * True while some instance holds the conversation's turn (it runs there). False when unknown, and always on one
   * instance: the agent knows its own turns.
   */
  turnRunning(conversationId: string): Promise<boolean>

  /**
   * Gives the coordinator the relay's page connections (their claims are renewed while they are open) and the
   * handlers of what other instances send; returns the function that stops it (the relay closes).
   */
  attachPages(host: PageHost): () => void
  /**
   * What to do with the calls an earlier run left pending in the store: on one instance nobody waits for them, so
   * `timeOut` runs now; with other instances they may be theirs, and each instance times out its own.
   */
  earlierCalls(timeOut: () => Promise<unknown>): Promise<unknown>
  /** The page loads are held here from now on (a connection here said it carries them). */
  holdPages(clientIds: Iterable<string>): void
  /** As {@link Coordinator.holdPages}, for page loads whose connection another instance handed over to this one. */
  adoptPages(clientIds: Iterable<string>): void
  /** Gives up this instance's hold of a page load (its last connection here closed). */
  releasePage(clientId: string): void
  /** A connection of the conversation is open here that has not said which page load it carries. */
  joinConnecting(conversationId: string): void
  /** No connection of the conversation here is left that has not said which page load it carries. */
  leaveConnecting(conversationId: string): void
  /**
   * The page loads' connection moved to instance `to`: what still comes here for them goes on there for a while
   * (`LEASE_MS`), then this instance's hold is given up unless `openHere` says a connection here carries it again.
   */
  handOverPages(clientIds: Iterable<string>, to: string, openHere: (clientId: string) => boolean): void
  /**
   * The other instances a message for the page load goes to: the one holding it, those with a connection of the
   * conversation that has not said which page load it carries, one it moved to lately. `connectingHere`: this
   * instance has such a connection (then `found` is never undefined). Undefined when there is no other instance.
   */
  locate(conversationId: string, clientId: string, connectingHere: boolean): Promise<Located> | undefined
  /** True when another instance holds the page load (and when that cannot be told now); false on one instance. */
  heldElsewhere(clientId: string): Promise<boolean>
  /** True when another instance has a connection of the conversation that has not said its page load yet. */
  connectingElsewhere(conversationId: string): Promise<boolean>
  /**
   * Hands a bridge message for the page load to the other instances that may hold it (`to`, else located now); a
   * call with its id and secrets. Never throws: a failure is logged. Nothing to do on one instance.
   */
  deliver(
    conversationId: string,
    clientId: string,
    message: AgentToPageMessage,
    to?: readonly string[],
    call?: { id: string; secrets: readonly string[] },
  ): void
  /**
   * Returns a call's outcome to the instance that waits for it (`waiter`, the call's stored instance), when that is
   * another one: `outcome` is made only then. Never throws: a failure is logged.
   */
  returnOutcome(waiter: string | undefined, outcome: () => Outcome): void
  /**
   * A call this instance waits for was settled by someone else. With other instances, `follow` runs: the outcome
   * may come from another instance, or be lost on its way. On one instance it is on its way here already.
   */
  settledByAnother(follow: () => Promise<void>): Promise<void>
  /** The conversation's page binding or manifest was written here: the other instances drop their copies. */
  pageChanged(conversationId: string): void

  /**
   * Gives the coordinator the HTTP transport's page streams (their claims are renewed while they are open) and the
   * handlers of what other instances send about them; returns the function that stops it.
   */
  attachStreams(host: StreamHost): () => void
  /** The stream is held here from now on, for `userId`. */
  holdStream(streamId: string, userId: string): void
  /** Gives up this instance's hold of the stream (it closed here). */
  releaseStream(streamId: string): void
  /** The other instance holding the stream, and its user; undefined when none does, or it cannot be told now. */
  streamElsewhere(streamId: string): Promise<{ instance: string; userId: string } | undefined>
  /**
   * Where the stream is, when not here: the instance it moved to lately, else the one holding its claim. Right
   * after the other instances came back into reach, a missing claim is waited for {@link CLAIM_WAIT_MS};
   * `unsure` when it is still missing then. Rejects when the other instances cannot be reached.
   */
  findStream(
    streamId: string,
  ): Promise<{ found: { instance: string; userId: string } | undefined; unsure: boolean }>
  /**
   * Asks instance `from` to hand the stream over for a resume here; `adopt` makes it this instance's as soon as it
   * arrives. Resolves with what `adopt` returned, or undefined when `from` has no such stream or did not answer
   * in time ({@link TAKE_TIMEOUT_MS}).
   */
  takeStream<T>(
    from: string,
    take: { streamId: string; userId: string; conversationId: string },
    adopt: (stream: MovedStream) => T,
  ): Promise<T | undefined>
  /**
   * Hands a POST to the instance holding its stream; resolves once that instance handled it (true), found no such
   * stream (false), or did not answer within `LEASE_MS` (true: it may still handle it). Rejects when it could not
   * be handed on. The page sends its messages one at a time, each after the answer to the one before, so waiting
   * for this keeps them in order whichever instance each lands on.
   */
  postTo(instance: string, post: HandedPost): Promise<boolean>
  /** Tells the instance holding the stream to close it (the page POSTed an oversized message here). */
  endStream(instance: string, streamId: string, userId: string): Promise<void>
  /** Resolves when the other instances can be reached (readiness); at once on one instance. */
  ping(): Promise<void>
}
