import type { Coordinator } from '../coordinate/coordinator.ts'
import { localCoordinator } from '../coordinate/local.ts'
import type { ClusterEvent } from '../relay/cluster.ts'
import type { ChatEvent } from '../shared/contract.ts'
import { escapeForLog } from '../shared/log.ts'

/** How long a chat stream opened mid-message on one instance waits for the text so far from another. */
const SNAPSHOT_WAIT_MS = 2000

type Listener = (event: ChatEvent) => void

/**
 * A per-conversation publish/subscribe hub for the chat's server-sent events. Every event also goes to the
 * {@link Coordinator}, which fans it out to the other instances with a listener of the conversation (shared
 * mode), so a chat stream sees the turns that run on any instance.
 *
 * It keeps the text so far of each conversation's message in progress: a listener that joins mid-message
 * first gets it as one `text-delta`. In shared mode, a listener on an instance that did not see the message
 * from its start asks the instance running the turn for it (a `snapshot`) and gets no deltas until then.
 */
export class ConversationEvents {
  readonly #listeners = new Map<string, Set<Listener>>()
  readonly #coordinator: Coordinator
  /** Conversation → the coordinator's watch of its events, started by its first listener here. */
  readonly #watching = new Map<string, Promise<void>>()
  /** Conversation → its message in progress, as far as this instance saw it from its start. */
  readonly #partials = new Map<string, { messageId: string; text: string }>()
  /** Conversations whose message in progress this instance learned from another one (not its own turn). */
  readonly #remote = new Set<string>()
  /** Listeners waiting for another instance's snapshot of the message in progress → their give-up timer. */
  readonly #awaiting = new Map<Listener, ReturnType<typeof setTimeout>>()

  /** `coordinator`: how events reach the other instances. Default none to reach (one process). */
  constructor(coordinator: Coordinator = localCoordinator()) {
    this.#coordinator = coordinator
    coordinator.onEvent((conversationId, event) => this.#fromElsewhere(conversationId, event))
    coordinator.onSnapshotAsk((conversationId) => this.#answerSnapshot(conversationId))
  }

  /**
   * Listen to one conversation; returns the unsubscribe function (calling it again does nothing). When a
   * message is in progress, the listener first gets its text so far (shared mode: once it arrived).
   */
  subscribe(conversationId: string, listener: Listener): () => void {
    let set = this.#listeners.get(conversationId)
    if (!set) {
      set = new Set()
      this.#listeners.set(conversationId, set)
      this.#watch(conversationId)
    }
    set.add(listener)
    const partial = this.#partials.get(conversationId)
    if (partial)
      this.#call(listener, { type: 'text-delta', messageId: partial.messageId, delta: partial.text })
    else this.#askSnapshot(conversationId, listener)
    let subscribed = true
    return () => {
      // Idempotent, and it only ever removes this listener: the conversation's set is dropped only
      // when it is still the one this listener joined and is now empty (a later subscriber, e.g. the
      // page after a reload, may have created a new set under the same conversation).
      if (!subscribed) return
      subscribed = false
      set.delete(listener)
      this.#stopAwaiting(listener)
      if (set.size === 0 && this.#listeners.get(conversationId) === set) {
        this.#listeners.delete(conversationId)
        this.#watching.delete(conversationId)
        this.#coordinator.unwatchEvents(conversationId)
        // Unwatched, another instance's message would go stale here (its end never arrives): forget it.
        if (this.#remote.delete(conversationId)) this.#partials.delete(conversationId)
      }
    }
  }

  /**
   * Resolves once the other instances send this one the conversation's events (shared mode; at once
   * otherwise): a listener that waits for it misses nothing published afterwards, wherever the turn runs.
   */
  async watched(conversationId: string): Promise<void> {
    await this.#watching.get(conversationId)
  }

  #watch(conversationId: string): void {
    const watching = this.#coordinator.watchEvents(conversationId).catch((error: unknown) => {
      // The coordinator is unreachable: the coordinator watches again once it is back.
      console.error(`[events] could not watch a conversation's events: ${escapeForLog(error)}`)
    })
    this.#watching.set(conversationId, watching)
  }

  /** Deliver an event to the conversation's listeners (a throwing listener does not stop the others). */
  publish(conversationId: string, event: ChatEvent): void {
    this.#remote.delete(conversationId)
    if (event.type === 'text-delta') {
      const partial = this.#partials.get(conversationId)
      const offset = partial?.messageId === event.messageId ? partial.text.length : 0
      this.#track(conversationId, { ...event, offset })
      this.#deliver(conversationId, event)
      this.#coordinator.publishEvent(conversationId, { ...event, offset })
      return
    }
    this.#track(conversationId, event)
    this.#deliver(conversationId, event)
    this.#coordinator.publishEvent(conversationId, event)
  }

  /** The text so far of the conversation's message in progress on this instance, if any. */
  partial(conversationId: string): { messageId: string; text: string } | undefined {
    return this.#partials.get(conversationId)
  }

  #fromElsewhere(conversationId: string, event: ClusterEvent): void {
    // Nobody listens here (an event still in flight after the last listener left): kept, it would go stale.
    if (!this.#listeners.has(conversationId)) return
    this.#remote.add(conversationId)
    if (event.type === 'snapshot') {
      if (event.messageId !== undefined && !this.#partials.has(conversationId))
        this.#partials.set(conversationId, { messageId: event.messageId, text: event.text })
      for (const listener of this.#listeners.get(conversationId) ?? [])
        this.#release(conversationId, listener)
      return
    }
    this.#track(conversationId, event)
    if (event.type === 'text-delta') {
      this.#deliver(conversationId, { type: 'text-delta', messageId: event.messageId, delta: event.delta })
    } else this.#deliver(conversationId, event)
  }

  /** Keeps the message in progress up to date; a delta that does not follow on what is kept makes it unknown. */
  #track(conversationId: string, event: ClusterEvent): void {
    const partial = this.#partials.get(conversationId)
    if (event.type === 'text-delta') {
      if (event.offset === 0)
        this.#partials.set(conversationId, { messageId: event.messageId, text: event.delta })
      else if (partial?.messageId === event.messageId && partial.text.length === event.offset)
        partial.text += event.delta
      else this.#partials.delete(conversationId)
    } else if (event.type === 'message' ? partial?.messageId === event.message.id : event.type === 'busy') {
      this.#partials.delete(conversationId)
    }
  }

  /**
   * Asks the instance running the conversation's turn for its message in progress, when that may be another
   * instance: the listener waits for its answer (a `snapshot` event), for {@link SNAPSHOT_WAIT_MS} at most.
   */
  #askSnapshot(conversationId: string, listener: Listener): void {
    const asked = this.#coordinator.askSnapshot(conversationId)
    if (!asked) return
    this.#awaiting.set(
      listener,
      setTimeout(() => this.#release(conversationId, listener), SNAPSHOT_WAIT_MS),
    )
    asked.then(
      (sent) => {
        if (!sent) this.#release(conversationId, listener)
      },
      (error: unknown) => {
        this.#release(conversationId, listener)
        console.error(`[events] could not ask for the message in progress: ${escapeForLog(error)}`)
      },
    )
  }

  #answerSnapshot(conversationId: string): void {
    const partial = this.#partials.get(conversationId)
    this.#coordinator.publishEvent(
      conversationId,
      partial ? { type: 'snapshot', ...partial } : { type: 'snapshot', text: '' },
    )
  }

  /**
   * Ends a listener's wait for the text so far: it gets the message in progress as this instance knows it now
   * (it got none of that message's deltas while it waited).
   */
  #release(conversationId: string, listener: Listener): void {
    if (!this.#awaiting.has(listener)) return
    this.#stopAwaiting(listener)
    const partial = this.#partials.get(conversationId)
    if (partial && partial.text !== '')
      this.#call(listener, { type: 'text-delta', messageId: partial.messageId, delta: partial.text })
  }

  #stopAwaiting(listener: Listener): void {
    const timer = this.#awaiting.get(listener)
    if (timer === undefined) return
    clearTimeout(timer)
    this.#awaiting.delete(listener)
  }

  #deliver(conversationId: string, event: ChatEvent): void {
    for (const listener of this.#listeners.get(conversationId) ?? []) {
      // A listener waiting for the text so far gets it whole with the snapshot, not piece by piece.
      if (event.type === 'text-delta' && this.#awaiting.has(listener)) continue
      this.#call(listener, event)
    }
  }

  #call(listener: Listener, event: ChatEvent): void {
    try {
      listener(event)
    } catch (error) {
      console.error(`[events] listener failed: ${escapeForLog(error)}`)
    }
  }
}
