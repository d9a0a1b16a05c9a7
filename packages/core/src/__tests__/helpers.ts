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

/** Waits for queued microtasks (debounced notifications). */
export const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

export const searchTool = {
  name: 'search',
  description: 'Search challenges by keyword.',
  input: z.object({ query: z.string() }),
  hints: { readOnly: true },
  run: ({ query }: { query: string }) => ok({ query }),
}
