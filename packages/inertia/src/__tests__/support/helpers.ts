/** Waits shared by the binding tests, all on real timers. */

/** Resolves after `ms` milliseconds (0: the next turn of timers, after queued microtasks). */
export const wait = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits on real I/O until `predicate` holds; throws "`what` not reached" after 5 s. */
export async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached`)
    await wait(5)
  }
}

/**
 * Lets the router's requests to the loopback server and the re-renders they cause finish: five
 * rounds of a 5 ms wait, each followed by `render` (the framework's flush: Vue's `nextTick`,
 * Svelte's `tick`).
 */
export async function settle(render: () => unknown = () => {}): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await wait(5)
    await render()
  }
}

/** {@link settle} for React: each wait runs inside `act`, so the updates it causes are flushed. */
export async function settleInAct(act: (during: () => Promise<void>) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 5; i++) await act(() => wait(5))
}
