/** One signal handed out by {@link Stops}: give it back with `release` when its work ends. */
export interface Stop {
  readonly signal: AbortSignal
  release(): void
}

/**
 * Stop signals for work in flight, all aborted by one {@link abort}. Each piece of work gets a signal of its
 * own, so a busy server never piles listeners on one shared signal (and Node never warns of a leak).
 */
export class Stops {
  readonly #live = new Set<AbortController>()
  #aborted = false

  /** A signal for one piece of work; already aborted after {@link abort}. */
  take(): Stop {
    const controller = new AbortController()
    if (this.#aborted) controller.abort()
    else this.#live.add(controller)
    return { signal: controller.signal, release: () => this.#live.delete(controller) }
  }

  /** Aborts every signal handed out and not released, and every later one. */
  abort(): void {
    this.#aborted = true
    for (const controller of this.#live) controller.abort()
    this.#live.clear()
  }
}
