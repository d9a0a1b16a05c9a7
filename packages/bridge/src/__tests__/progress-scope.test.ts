/**
 * Which calls `progressBridge` reports: only the ones its own server made, even when another bridge on the same
 * page (another server) runs the same tool with its own protocol ids.
 */

import { ok, type RunResult, type ToolContext } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import { progressBridge } from '../progress.ts'
import { type Msg, tick } from './helpers.ts'

describe('progressBridge next to another bridge', () => {
  it("reports its own server's calls only, never a call another bridge runs", async () => {
    const tm = createTestToolmark({ dev: false })
    /** The running calls' contexts, in the order they started. */
    const contexts: ToolContext[] = []
    const finishers: Array<() => void> = []
    tm.register({
      name: 'work',
      description: 'Long work',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) => {
          contexts.push(ctx)
          finishers.push(() => resolve(ok('done')))
        }),
    })
    const a = createInPageChannel()
    const b = createInPageChannel()
    const toA: Msg[] = []
    const toB: Msg[] = []
    a.agent.onMessage((m) => toA.push(m as Msg))
    b.agent.onMessage((m) => toB.push(m as Msg))
    tm.use(progressBridge({ transport: a.transport, clientId: 'page-a' }))
    tm.use(bridge({ transport: b.transport, clientId: 'page-b' }))
    await tick()
    a.agent.send({ protocol: 1, type: 'extensions', clientId: 'page-a', accept: ['progress'] })
    // Server B calls, then server A (one after the other): each with its own protocol id.
    b.agent.send({ protocol: 1, type: 'call', clientId: 'page-b', id: 'b1', tool: 'work', input: {} })
    await tick()
    contexts[0]!.progress({ message: 'for server B' })
    await tick()
    finishers[0]!()
    await tick()
    a.agent.send({ protocol: 1, type: 'call', clientId: 'page-a', id: 'a1', tool: 'work', input: {} })
    await tick()
    contexts[1]!.progress({ message: 'for server A' })
    await tick()
    finishers[1]!()
    await tick()

    expect(toA.filter((m) => m.type === 'progress')).toEqual([
      { protocol: 1, type: 'progress', clientId: 'page-a', id: 'a1', message: 'for server A' },
    ])
    expect(toB.filter((m) => m.type === 'progress')).toEqual([])
    expect(toA.filter((m) => m.type === 'result').map((m) => m.id)).toEqual(['a1'])
    expect(toB.filter((m) => m.type === 'result').map((m) => m.id)).toEqual(['b1'])
  })
})
