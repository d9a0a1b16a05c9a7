import type { Cluster } from '../relay/cluster.ts'
import type { ChatEvent } from '../shared/contract.ts'
import { escapeForLog } from '../shared/log.ts'

/**
 * A per-conversation publish/subscribe hub for the chat's server-sent events. With a {@link Cluster}
 * (shared mode) every event is fanned out to the other instances too, so a chat stream sees the turns
 * that run on any instance.
 */
export class ConversationEvents {
  readonly #listeners = new Map<string, Set<(event: ChatEvent) => void>>()
  readonly #cluster: Cluster | undefined

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
      if (set.size === 0 && this.#listeners.get(conversationId) === set)
        this.#listeners.delete(conversationId)
    }
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
