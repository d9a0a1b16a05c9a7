/**
 * What the bridge keeps on the registry per clientId for `confirmed` (delivery.ts): kept while it
 * holds outcomes to deliver, gone with its listener once it has none and no bridge is attached.
 */

import type { Toolmark } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import { createTool, type Msg, tick } from './helpers.ts'

/**
 * Counts the registry's live subscriptions: event listeners by event name, and `subscribe`
 * listeners under `revisions`. Every unsubscribe counts once.
 */
function countSubscriptions(tm: Toolmark): Map<string, number> {
  const live = new Map<string, number>()
  const counted = (name: string, off: () => void): (() => void) => {
    live.set(name, (live.get(name) ?? 0) + 1)
    let done = false
    return () => {
      if (!done) live.set(name, live.get(name)! - 1)
      done = true
      off()
    }
  }
  const on = tm.events.on.bind(tm.events)
  tm.events.on = ((event, listener) => counted(event, on(event, listener))) as typeof tm.events.on
  const subscribe = tm.subscribe
  tm.subscribe = (listener) => counted('revisions', subscribe(listener))
  return live
}

const snapshot = (live: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...live].filter(([, n]) => n !== 0))

describe('per-clientId delivery state', () => {
  it('1,000 bridges attached and disposed with distinct clientIds leave no subscription on the registry', () => {
    const tm = createTestToolmark({ dev: false })
    const live = countSubscriptions(tm)
    const baseline = snapshot(live)
    for (let i = 0; i < 1000; i++) {
      const { transport } = createInPageChannel()
      tm.use(bridge({ transport, clientId: `client-${i}` }))()
    }
    expect(snapshot(live)).toEqual(baseline)
  })

  it('keeps a clientId while it has an outcome to deliver, and lets it go once delivered', async () => {
    const tm = createTestToolmark({ dev: false })
    createTool(tm)
    const live = countSubscriptions(tm)
    const baseline = snapshot(live)
    const first = createInPageChannel()
    const seen: Msg[] = []
    first.agent.onMessage((m) => seen.push(m as Msg))
    const off = tm.use(bridge({ transport: first.transport, clientId: 'kept' }))
    first.agent.send({
      protocol: 1,
      clientId: 'kept',
      type: 'call',
      id: 'c1',
      tool: 'create',
      input: { name: 'a' },
    })
    await tick()
    const { confirmId } = seen.find((m) => m.type === 'result')!.result as { confirmId: string }
    off()
    // Detached with a confirmation still open: the listener stays to keep its outcome.
    expect(snapshot(live)).toEqual({ ...baseline, confirm: 1 })
    await tm.confirmPending(confirmId, { approved: true })
    expect(snapshot(live)).toEqual({ ...baseline, confirm: 1 })

    const second = createInPageChannel()
    const later: Msg[] = []
    second.agent.onMessage((m) => later.push(m as Msg))
    const offAgain = tm.use(bridge({ transport: second.transport, clientId: 'kept' }))
    await tick()
    expect(later.filter((m) => m.type === 'confirmed').map((m) => m.confirmId)).toEqual([confirmId])
    offAgain()
    // Delivered, nothing open, no bridge attached: nothing is left for that clientId.
    expect(snapshot(live)).toEqual(baseline)
  })
})
