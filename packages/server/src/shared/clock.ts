/** Time source and timers, injectable so deadline tests run on a manual clock. */
export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** The real clock (`Date.now` and Node timers; timers are unref'd so they never keep the process alive). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms)
    handle.unref()
    return handle
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>)
  },
}

/** A clock that only moves when told to: `advance(ms)` runs the timers that fall due, in order. */
export interface ManualClock extends Clock {
  advance(ms: number): void
}

/** Creates a {@link ManualClock} starting at `start` epoch milliseconds. */
export function manualClock(start = 1_700_000_000_000): ManualClock {
  let current = start
  let seq = 0
  const timers = new Map<number, { at: number; fn: () => void }>()
  return {
    now: () => current,
    setTimeout(fn, ms) {
      const id = ++seq
      timers.set(id, { at: current + Math.max(0, ms), fn })
      return id
    },
    clearTimeout(handle) {
      timers.delete(handle as number)
    },
    advance(ms) {
      const target = current + ms
      for (;;) {
        let next: [number, { at: number; fn: () => void }] | undefined
        for (const entry of timers)
          if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry
        if (!next) break
        timers.delete(next[0])
        current = next[1].at
        next[1].fn()
      }
      current = target
    },
  }
}
