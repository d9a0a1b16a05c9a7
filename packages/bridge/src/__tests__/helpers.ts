import { performance } from 'node:perf_hooks'
import { setTimeout as realSetTimeout } from 'node:timers'
import { ok, type Toolmark, type ToolmarkOptions } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { vi } from 'vitest'
import * as z from 'zod'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'

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

/** The clientId of the bridge tests' agent. */
export const CLIENT = 'acceptance-client'

/** A protocol message as the tests read it. */
export type Msg = Record<string, unknown>

/**
 * A production test registry with a bridge over an in-page channel: `send` posts as the agent,
 * `received` holds what the agent got, `resultOf(id)` the result for one call id.
 */
export function page(
  options: ToolmarkOptions = {},
  bridgeOptions: { onChange?: 'manifest' | 'changed'; maxMessageBytes?: number } = {},
) {
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: string[] = []
  tm.events.on('error', (e) => errors.push(e.code))
  const { transport, agent } = createInPageChannel()
  const received: Msg[] = []
  agent.onMessage((m) => received.push(m as Msg))
  const dispose = tm.use(bridge({ transport, clientId: CLIENT, ...bridgeOptions }))
  const send = (m: Msg): void => agent.send({ protocol: 1, clientId: CLIENT, ...m })
  const results = (): Msg[] => received.filter((m) => m.type === 'result')
  const resultOf = (id: string): unknown => results().find((m) => m.id === id)?.result
  return { tm, agent, received, errors, dispose, send, results, resultOf, transport }
}

/** Registers a read-only `search` tool on `tm`; returns its `run` mock. */
export const readTool = (
  tm: Toolmark,
  run = vi.fn((input: { query: string }) => ok({ query: input.query })),
) => {
  tm.register({
    name: 'search',
    description: 'Search',
    input: z.object({ query: z.string() }),
    hints: { readOnly: true },
    run,
  })
  return run
}

/** Registers a consequential `create` tool with a summary on `tm`; returns its `run` mock. */
export const createTool = (
  tm: Toolmark,
  run = vi.fn((input: { name: string }) => ok({ created: input.name })),
) => {
  tm.register({
    name: 'create',
    description: 'Create',
    input: z.object({ name: z.string() }),
    hints: { consequential: true },
    summary: ({ name }) => `Create "${name}"`,
    run,
  })
  return run
}
