/**
 * Time sources, read on every use so fake clocks apply. `now` is the wall clock (epoch ms);
 * `mono` is monotonic (`performance.now()`), immune to wall-clock jumps.
 */
export const clock = {
  now: (): number => Date.now(),
  mono: (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now()),
}

/** A `setTimeout` that never keeps a Node process alive. */
export function timer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const t = setTimeout(fn, ms)
  ;(t as { unref?: () => void }).unref?.()
  return t
}
