import type { Toolmark, ToolmarkConsumer } from '../types.ts'

/**
 * Attaches `consumers` to `tm` (`tm.use` each, in order) and returns the function that lets go of
 * them. Letting go waits one microtask: React's StrictMode (a simulated unmount and mount), fast
 * refresh and hot module replacement attach again within the same task, so the core's ref-count keeps
 * a consumer such as a bridge attached once instead of closing its transport and opening it again.
 * Calling the returned function twice lets go once.
 */
export function attachConsumers(
  tm: Pick<Toolmark, 'use'>,
  consumers: readonly ToolmarkConsumer[],
): () => void {
  let detach: Array<() => void> | undefined = consumers.map((consumer) => tm.use(consumer))
  return () => {
    const held = detach
    detach = undefined
    if (held) {
      queueMicrotask(() => {
        for (const dispose of held) dispose()
      })
    }
  }
}
