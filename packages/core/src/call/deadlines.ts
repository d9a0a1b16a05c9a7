import { clock, timer } from '../clock.ts'

/** Something with a deadline on the monotonic clock. */
export interface Timed {
  deadline: number
  /** Owned by `Deadlines`: whether the item is currently tracked. */
  tracked: boolean
  expire(): void
}

/**
 * One shared timer for every in-flight call (a timer per call costs ~0.4 µs). Items live in an
 * array with lazy deletion: adding appends, deleting only clears the item's flag, and the array is
 * compacted once it is mostly dead. A `Set` was measured here to put ~1% of calls at ~13 µs (its
 * add/delete churn), against ~1 µs for the array.
 */
export class Deadlines {
  #items: Timed[] = []
  #live = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  #at = Number.POSITIVE_INFINITY

  add(item: Timed): void {
    if (item.tracked) return
    item.tracked = true
    this.#live++
    const items = this.#items
    if (items.length >= 64 && items.length > 4 * this.#live) this.#compact()
    this.#items.push(item)
    if (item.deadline < this.#at) this.#arm(item.deadline)
  }

  delete(item: Timed): void {
    if (!item.tracked) return
    item.tracked = false
    this.#live--
  }

  #compact(): void {
    const seen = new Set<Timed>()
    this.#items = this.#items.filter(
      (item) => item.tracked && !seen.has(item) && seen.add(item) !== undefined,
    )
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#at = at
    this.#timer = timer(() => this.#fire(), Math.max(0, at - clock.mono()))
  }

  #fire(): void {
    this.#timer = undefined
    this.#at = Number.POSITIVE_INFINITY
    const now = clock.mono()
    const due: Timed[] = []
    for (const item of this.#items) {
      if (item.tracked && item.deadline <= now) {
        item.tracked = false
        this.#live--
        due.push(item)
      }
    }
    this.#compact()
    let next = Number.POSITIVE_INFINITY
    for (const item of this.#items) if (item.deadline < next) next = item.deadline
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next)
    for (const item of due) item.expire()
  }
}
