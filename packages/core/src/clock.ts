/**
 * Time sources, read on every use so fake clocks apply. `now` is the wall clock (epoch ms);
 * `mono` is monotonic (`performance.now()`), immune to wall-clock jumps.
 */
export const clock = {
  now: (): number => Date.now(),
  mono: (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now()),
}

/**
 * The longest delay `setTimeout` honours (2^31 − 1 ms, about 24.8 days); a longer one fires after
 * 1 ms. Timers here never wait longer than this in one go.
 */
export const MAX_TIMER_MS = 2_147_483_647

/**
 * A `setTimeout` that never keeps a Node process alive. Delays above `MAX_TIMER_MS` are clamped to
 * it: callers that can wait longer re-check their deadline when it fires (see `later`).
 */
export function timer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const t = setTimeout(fn, Math.min(ms, MAX_TIMER_MS))
  ;(t as { unref?: () => void }).unref?.()
  return t
}

/**
 * Runs `fn` once `ms` have passed on the monotonic clock, however long that is: a delay above what
 * `setTimeout` accepts is waited out in steps. Returns a function that cancels it.
 */
export function later(fn: () => void, ms: number): () => void {
  const at = clock.mono() + ms
  let t: ReturnType<typeof setTimeout>
  const wait = (): void => {
    const left = at - clock.mono()
    t = left > MAX_TIMER_MS ? timer(wait, MAX_TIMER_MS) : timer(fn, Math.max(0, left))
  }
  wait()
  return () => clearTimeout(t)
}
