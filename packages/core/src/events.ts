import type { ToolmarkEventName, ToolmarkEvents } from './types.ts'

type Listener<E extends ToolmarkEventName> = (payload: ToolmarkEvents[E]) => void

/** A tiny typed emitter. `on` returns an unsubscribe; a throwing listener never breaks the registry. */
export class Emitter {
  readonly #listeners: { [E in ToolmarkEventName]?: Set<Listener<E>> } = {}

  on<E extends ToolmarkEventName>(event: E, listener: Listener<E>): () => void {
    let set = this.#listeners[event] as Set<Listener<E>> | undefined
    if (!set) {
      set = new Set()
      ;(this.#listeners as Record<string, Set<Listener<E>>>)[event] = set
    }
    const s = set
    s.add(listener)
    return () => {
      s.delete(listener)
    }
  }

  /** True when someone listens: callers skip building payloads otherwise. */
  has(event: ToolmarkEventName): boolean {
    const set = this.#listeners[event]
    return set !== undefined && set.size > 0
  }

  emit<E extends ToolmarkEventName>(event: E, payload: ToolmarkEvents[E]): void {
    const set = this.#listeners[event] as Set<Listener<E>> | undefined
    if (!set || set.size === 0) return
    for (const listener of [...set]) {
      try {
        listener(payload)
      } catch (err) {
        console.error('[toolmark] an event listener threw', err)
      }
    }
  }
}
