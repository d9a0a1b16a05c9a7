import { performance } from 'node:perf_hooks'
import { setTimeout as realSetTimeout } from 'node:timers'
import { vi } from 'vitest'
import * as z from 'zod'
import { isToolmarkError } from '../errors.ts'
import { createTestToolmark } from '../testing/index.ts'
import { ok } from '../tool/result.ts'
import type {
  NeedsConfirmationResult,
  ToolContext,
  ToolDefinition,
  Toolmark,
  ToolmarkErrorEvent,
  ToolmarkEvents,
  ToolmarkOptions,
  ToolResult,
} from '../types.ts'

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

/** Read-only tools answer without confirmation. */
export const RO = { readOnly: true } as const

/** A read-only `search` tool that echoes its query. */
export const searchTool = {
  name: 'search',
  description: 'Search challenges by keyword.',
  input: z.object({ query: z.string() }),
  hints: { readOnly: true },
  run: ({ query }: { query: string }) => ok({ query }),
}

/** A read-only tool named `name` that answers `ok()`; `extra` overrides any field. */
export const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `Tool ${name}`,
  hints: RO,
  run: () => ok(),
  ...extra,
})

/** The `ToolmarkError` code `fn` throws, `undefined` when it does not throw. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    return isToolmarkError(err) ? err.code : `not a ToolmarkError: ${String(err)}`
  }
  return undefined
}

/** The answer to an approval that came too late or twice. */
export const EXPIRED = {
  status: 'refused',
  code: 'confirmation_expired',
  message: 'The confirmation expired or was already used',
}

/** The answer to a call whose confirmation the user rejected. */
export const OPERATOR = { status: 'cancelled', by: 'operator' }

/** `result` as a `needs_confirmation` (throws, and so fails the test, for any other result). */
export function needs(result: ToolResult): NeedsConfirmationResult {
  if (result.status !== 'needs_confirmation')
    throw new Error(`expected needs_confirmation: ${JSON.stringify(result)}`)
  return result
}

/** A consequential `create` tool with a summary; `run` echoes the input. */
export const createDef = (run = vi.fn((input: unknown, _ctx: ToolContext) => ok(input))): ToolDefinition =>
  ({
    name: 'create',
    description: 'Create a challenge',
    title: 'Create challenge',
    input: z.object({ name: z.string() }),
    hints: { consequential: true },
    summary: ({ name }: { name: string }) => `Create challenge "${name}"`,
    run,
  }) as unknown as ToolDefinition

/** A production test registry that records error events and settled confirmations. */
export function withEvents(options: ToolmarkOptions = {}): {
  tm: Toolmark
  errors: ToolmarkErrorEvent[]
  settled: Extract<ToolmarkEvents['confirm'], { phase: 'settled' }>[]
} {
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  const settled: Extract<ToolmarkEvents['confirm'], { phase: 'settled' }>[] = []
  tm.events.on('error', (e) => errors.push(e))
  tm.events.on('confirm', (e) => {
    if (e.phase === 'settled') settled.push(e)
  })
  return { tm, errors, settled }
}
