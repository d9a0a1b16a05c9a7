import type { Coordinator } from '../coordinate/coordinator.ts'
import { LimitExceeded, PerUser } from '../shared/limits.ts'
import { escapeForLog } from '../shared/log.ts'
import { Stops } from '../shared/stops.ts'
import type { Conversation } from '../store/store.ts'
import type { ConversationEvents } from './events.ts'

/** What a {@link TurnQueue} needs. */
export interface TurnQueueOptions {
  events: ConversationEvents
  /** Runs each turn, one at a time per conversation across every instance. */
  coordinator: Coordinator
  /** Most turns of one user's messages queued or running here at once. */
  maxQueuedTurnsPerUser: number
  /** Where a failed turn is reported. */
  log: (line: string) => void
}

/**
 * The turn queue: one chain of turns per conversation, each run through the coordinator, with a cap on the
 * turns of each user. It publishes `busy` when a conversation's first turn is queued and `busy: false` when
 * its last one ends. After {@link close} it queues nothing and every signal of its {@link stops} is aborted.
 */
export class TurnQueue {
  readonly #o: TurnQueueOptions
  readonly #queues = new Map<string, Promise<void>>()
  /** The turns of each user's messages queued or running here. */
  readonly #turns: PerUser
  /** Aborted by `close()`: a model request in flight does not hold up a shutdown. */
  readonly #stops = new Stops()
  #closed = false

  constructor(options: TurnQueueOptions) {
    this.#o = options
    this.#turns = new PerUser(options.maxQueuedTurnsPerUser)
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closed
  }

  /** Stop signals for the work of turns (a model request): each is aborted once {@link close} was called. */
  get stops(): Stops {
    return this.#stops
  }

  /**
   * A place in the user's turn queue: call the returned function when the turn ends. Throws `LimitExceeded`
   * (`too_many_turns`) when the user's places are all taken.
   */
  take(conversation: Conversation): () => void {
    const done = this.#turns.take(conversation.userId)
    if (!done)
      throw new LimitExceeded(
        'too_many_turns',
        `Too many messages waiting for the agent: at most ${this.#turns.max} per user; wait for its answers`,
        5,
      )
    return done
  }

  /** Queues a task behind the conversation's others; does nothing once closed. */
  enqueue(conversationId: string, task: () => Promise<void>): void {
    if (this.#closed) return
    const { events, coordinator, log } = this.#o
    const previous = this.#queues.get(conversationId)
    if (!previous) events.publish(conversationId, { type: 'busy', busy: true })
    const next: Promise<void> = (previous ?? Promise.resolve())
      .then(async () => {
        const stop = this.#stops.take()
        try {
          await coordinator.runTurn(conversationId, task, {
            signal: stop.signal,
            // The instance that ran the turn before this one said not busy when it finished.
            waited: () => events.publish(conversationId, { type: 'busy', busy: true }),
          })
        } finally {
          stop.release()
        }
      })
      .catch((error: unknown) => log(`[agent] turn failed: ${escapeForLog(error)}`))
      .finally(() => {
        if (this.#queues.get(conversationId) !== next) return
        this.#queues.delete(conversationId)
        events.publish(conversationId, { type: 'busy', busy: false })
      })
    this.#queues.set(conversationId, next)
  }

  /** True while a turn is queued or running here for the conversation. */
  busy(conversationId: string): boolean {
    return this.#queues.has(conversationId)
  }

  /** Resolves once the conversation has no queued or running turn here. */
  async idle(conversationId: string): Promise<void> {
    for (let q = this.#queues.get(conversationId); q; q = this.#queues.get(conversationId)) await q
  }

  /** Queues nothing more, aborts the signal, and resolves once every queued turn has ended. */
  async close(): Promise<void> {
    this.#closed = true
    // Turns waiting for another instance's turn stop waiting (the coordinator sees the signal) and end.
    this.#stops.abort()
    await Promise.all([...this.#queues.values()])
  }
}
