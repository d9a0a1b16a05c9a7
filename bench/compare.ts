import { performance } from 'node:perf_hooks'

/**
 * `a` and `b` measured in alternating batches (so load on a shared machine hits both alike), after a
 * warm-up batch of each: every batch's mean of each, in ms per call.
 */
export async function compareBatches(
  a: () => unknown,
  b: () => unknown,
  batch = 2000,
  rounds = 15,
): Promise<[number[], number[]]> {
  for (let i = 0; i < batch; i++) {
    await a()
    await b()
  }
  const ta: number[] = []
  const tb: number[] = []
  for (let r = 0; r < rounds; r++) {
    for (const [fn, out] of [
      [a, ta],
      [b, tb],
    ] as const) {
      const t0 = performance.now()
      for (let i = 0; i < batch; i++) await fn()
      out.push((performance.now() - t0) / batch)
    }
  }
  return [ta, tb]
}

/** {@link compareBatches}, summarised as the lowest batch mean of each, in ms per call. */
export async function compare(
  a: () => unknown,
  b: () => unknown,
  batch = 2000,
  rounds = 15,
): Promise<[number, number]> {
  const [ta, tb] = await compareBatches(a, b, batch, rounds)
  return [Math.min(...ta), Math.min(...tb)]
}
