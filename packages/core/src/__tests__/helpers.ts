import { performance } from 'node:perf_hooks'
import { setTimeout as realSetTimeout } from 'node:timers'
import * as z from 'zod'
import { ok } from '../call/result.ts'
import { createTestToolmark } from '../testing/index.ts'
import type { Toolmark, ToolmarkErrorEvent, ToolmarkOptions } from '../types.ts'

/** A test registry in production mode that records error events. */
export function prodToolmark(options: ToolmarkOptions = {}): { tm: Toolmark; errors: ToolmarkErrorEvent[] } {
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  return { tm, errors }
}

/** Waits for queued microtasks (debounced notifications) and one turn of timers. */
export const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

/**
 * Waits on real I/O until `predicate` holds, polling every 5 ms on the real clock (also while a
 * test fakes timers or `Date`); throws "`what` not reached" after `timeoutMs`.
 */
export async function until(predicate: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`${what} not reached`)
    await new Promise((resolve) => realSetTimeout(resolve, 5))
  }
}

export const searchTool = {
  name: 'search',
  description: 'Search challenges by keyword.',
  input: z.object({ query: z.string() }),
  hints: { readOnly: true },
  run: ({ query }: { query: string }) => ok({ query }),
}
