/** Calls allowed on one scope at once (queued + running); the next one is refused `busy`. */
export const MAX_PENDING_PER_SCOPE = 32

/**
 * A per-scope FIFO (D22): one call runs at a time, in arrival order. `pending` counts queued and
 * running calls. A slot is released when its call settles or is abandoned after the grace period.
 */
export class CallQueue {
  pending = 0
  #running = false
  readonly #waiting: Array<() => void> = []

  /** True when another call would exceed the limit. */
  get full(): boolean {
    return this.pending >= MAX_PENDING_PER_SCOPE
  }

  /** Reserve a place (call before any await so arrival order holds). */
  enter(): void {
    this.pending++
  }

  /** Start `start` now if nothing runs, else when the calls ahead have released. */
  whenTurn(start: () => void): void {
    if (!this.#running) {
      this.#running = true
      start()
    } else {
      this.#waiting.push(start)
    }
  }

  /** Drop a reserved place that never started (a cancelled queued call). */
  forget(start: () => void): boolean {
    const i = this.#waiting.indexOf(start)
    if (i === -1) return false
    this.#waiting.splice(i, 1)
    this.pending--
    return true
  }

  /** Give up a place reserved with `enter` without taking a turn. */
  leave(): void {
    this.pending--
  }

  /** The running call is done (or abandoned): start the next one. */
  release(): void {
    this.pending--
    const next = this.#waiting.shift()
    if (next) next()
    else this.#running = false
  }
}
