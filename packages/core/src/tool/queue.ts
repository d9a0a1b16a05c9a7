/** Calls allowed on one scope at once (queued + running); the next one is refused `busy`. */
export const MAX_PENDING_PER_SCOPE = 32

/** Something that waits for its turn in a scope's queue. */
export interface Turn {
  start(): void
}

/**
 * A per-scope FIFO: one call runs at a time, in arrival order. `pending` counts queued and
 * running calls. A slot is released when its call settles or is abandoned after the grace period.
 */
export class CallQueue {
  pending = 0
  #running = false
  readonly #waiting: Turn[] = []

  /** True when another call would exceed the limit. */
  get full(): boolean {
    return this.pending >= MAX_PENDING_PER_SCOPE
  }

  /** Reserve a place (call before any await so arrival order holds). */
  enter(): void {
    this.pending++
  }

  /** Start `start` now if nothing runs, else when the calls ahead have released. */
  whenTurn(turn: Turn): void {
    if (!this.#running) {
      this.#running = true
      turn.start()
    } else {
      this.#waiting.push(turn)
    }
  }

  /** Drop a reserved place that never started (a cancelled queued call). */
  forget(turn: Turn): boolean {
    const i = this.#waiting.indexOf(turn)
    if (i === -1) return false
    this.#waiting.splice(i, 1)
    this.pending--
    return true
  }

  /** The running call is done (or abandoned): start the next one. */
  release(): void {
    this.pending--
    const next = this.#waiting.shift()
    if (next) next.start()
    else this.#running = false
  }
}
