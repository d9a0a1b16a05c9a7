import type { Cluster } from '../relay/cluster.ts'
import type { ChatEvent } from '../shared/contract.ts'
import { escapeForLog } from '../shared/log.ts'

/**
 * A per-conversation publish/subscribe hub for the chat's server-sent events. With a {@link Cluster}
 * (shared mode) every event is fanned out to the other instances too, so a chat stream sees the turns
 * that run on any instance; a cluster that can (`watch`) sends a conversation's events only to the instances
 * where it has a listener.
 */
export class ConversationEvents {
  readonly #listeners = new Map<string, Set<(event: ChatEvent) => void>>()
  readonly #cluster: Cluster | undefined
  /** Conversation → the cluster's `watch` of it, started by its first listener here. */
  readonly #watching = new Map<string, Promise<void>>()

  constructor(cluster?: Cluster) {
    this.#cluster = cluster
    cluster?.onEvent((conversationId, event) => this.#deliver(conversationId, event))
  }

  /** Listen to one conversation; returns the unsubscribe function (calling it again does nothing). */
  subscribe(conversationId: string, listener: (event: ChatEvent) => void): () => void {
    let set = this.#listeners.get(conversationId)
    if (!set) {
      set = new Set()
      this.#listeners.set(conversationId, set)
      this.#watch(conversationId)
    }
    set.add(listener)
    let subscribed = true
    return () => {
      // Idempotent, and it only ever removes this listener: the conversation's set is dropped only
      // when it is still the one this listener joined and is now empty (a later subscriber, e.g. the
      // page after a reload, may have created a new set under the same conversation).
      if (!subscribed) return
      subscribed = false
      set.delete(listener)
      if (set.size === 0 && this.#listeners.get(conversationId) === set) {
        this.#listeners.delete(conversationId)
        this.#watching.delete(conversationId)
        this.#cluster?.unwatch?.(conversationId)
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
    const watch = this.#cluster?.watch
    if (!watch) return
    const watching = watch.call(this.#cluster, conversationId).catch((error: unknown) => {
      // The coordinator is unreachable: the coordinator watches again once it is back.
      console.error(`[events] could not watch a conversation's events: ${escapeForLog(error)}`)
    })
    this.#watching.set(conversationId, watching)
  }

  /** Deliver an event to the conversation's listeners (a throwing listener does not stop the others). */
  publish(conversationId: string, event: ChatEvent): void {
    this.#deliver(conversationId, event)
    this.#cluster?.publish(conversationId, event)
  }

  #deliver(conversationId: string, event: ChatEvent): void {
    for (const listener of this.#listeners.get(conversationId) ?? []) {
      try {
        listener(event)
      } catch (error) {
        console.error(`[events] listener failed: ${escapeForLog(error)}`)
      }
    }
  }
}
