/**
 * The opt-in `progress` extension on the page side (`@toolmark/bridge/progress`): offered after the manifest,
 * sent only once the server accepted it, only for the server's calls in flight, and at most once per interval.
 */

import { ok, type RunResult, type ToolContext } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createInPageChannel } from '../in-page.ts'
import { progressBridge } from '../progress.ts'
import { CLIENT, type Msg, tick } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
})

/** A page whose `work` tool reports progress each time `step` is called, until `finish`. */
function progressPage(intervalMs = 250) {
  const tm = createTestToolmark({ dev: false })
  const { transport, agent } = createInPageChannel()
  const received: Msg[] = []
  agent.onMessage((m) => received.push(m as Msg))
  let ctx: ToolContext | undefined
  let finish: () => void = () => {}
  tm.register({
    name: 'work',
    description: 'Long work',
    hints: { readOnly: true },
    run: (_: unknown, c: ToolContext) =>
      new Promise<RunResult>((resolve) => {
        ctx = c
        finish = () => resolve(ok('done'))
      }),
  })
  const dispose = tm.use(progressBridge({ transport, clientId: CLIENT, intervalMs }))
  const send = (m: Msg): void => agent.send({ protocol: 1, clientId: CLIENT, ...m })
  const of = (type: string): Msg[] => received.filter((m) => m.type === type)
  return {
    tm,
    received,
    send,
    of,
    dispose,
    step: (update: Parameters<ToolContext['progress']>[0]) => ctx?.progress(update),
    finish: () => finish(),
  }
}

describe('progressBridge', () => {
  it('offers the extension once, after its manifest, and answers calls as the bridge does', async () => {
    const p = progressPage()
    await tick()
    expect(p.received.map((m) => m.type).slice(0, 2)).toEqual(['manifest', 'extensions'])
    expect(p.of('extensions')).toEqual([
      { protocol: 1, type: 'extensions', clientId: CLIENT, offer: ['progress'] },
    ])
    p.send({ type: 'call', id: 'c1', tool: 'work', input: {} })
    await tick()
    p.finish()
    await tick()
    expect(p.of('result')).toEqual([
      { protocol: 1, type: 'result', clientId: CLIENT, id: 'c1', result: { status: 'ok', data: 'done' } },
    ])
    expect(p.of('extensions')).toHaveLength(1)
  })

  it('sends nothing of the extension to a server that never accepted it (a v1 server)', async () => {
    const p = progressPage()
    await tick()
    p.send({ type: 'call', id: 'c1', tool: 'work', input: {} })
    await tick()
    p.step({ fraction: 0.5, message: 'half' })
    p.finish()
    await tick()
    expect(p.of('progress')).toEqual([])
  })

  it('once accepted, reports a running call under its protocol id, with what the tool gave', async () => {
    const p = progressPage()
    await tick()
    p.send({ type: 'extensions', accept: ['progress'] })
    p.send({ type: 'call', id: 'c1', tool: 'work', input: {} })
    await tick()
    p.step({ fraction: 0.25, message: 'Uploading 1 of 4', data: { rows: [1] } })
    await tick()
    expect(p.of('progress')).toEqual([
      {
        protocol: 1,
        type: 'progress',
        clientId: CLIENT,
        id: 'c1',
        fraction: 0.25,
        message: 'Uploading 1 of 4',
        data: { rows: [1] },
      },
    ])
  })

  it('sends at most one update per interval, the latest one, and none after the result', async () => {
    vi.useFakeTimers()
    const p = progressPage(250)
    await vi.advanceTimersByTimeAsync(0)
    p.send({ type: 'extensions', accept: ['progress'] })
    p.send({ type: 'call', id: 'c1', tool: 'work', input: {} })
    await vi.advanceTimersByTimeAsync(0)
    for (let i = 1; i <= 100; i++) p.step({ fraction: i / 100 })
    await vi.advanceTimersByTimeAsync(0)
    expect(p.of('progress').map((m) => m.fraction)).toEqual([0.01])
    await vi.advanceTimersByTimeAsync(250)
    expect(p.of('progress').map((m) => m.fraction)).toEqual([0.01, 1])
    p.step({ fraction: 0.5 })
    p.step({ fraction: 0.6 })
    p.finish()
    await vi.advanceTimersByTimeAsync(1000)
    // Whatever was waiting when the result went out is dropped: the result supersedes it.
    expect(p.of('progress').map((m) => m.fraction)).toEqual([0.01, 1])
    expect(p.of('result')).toHaveLength(1)
  })

  it('leaves out data that is not JSON or too large, and ignores progress of calls it did not make', async () => {
    const p = progressPage()
    await tick()
    p.send({ type: 'extensions', accept: ['progress'] })
    // A call of another caller (a test) reports progress: it is not the server's call.
    const local = p.tm.call('work', {}, { caller: 'test' })
    await tick()
    p.step({ fraction: 0.1 })
    p.finish()
    await local
    p.send({ type: 'call', id: 'c2', tool: 'work', input: {} })
    await tick()
    p.step({ message: 'big', data: 'x'.repeat(20_000) })
    await tick()
    expect(p.of('progress')).toEqual([
      { protocol: 1, type: 'progress', clientId: CLIENT, id: 'c2', message: 'big' },
    ])
  })

  it('an acceptance for another page load, or a malformed one, turns nothing on', async () => {
    const p = progressPage()
    await tick()
    p.send({ type: 'extensions', clientId: 'another-page', accept: ['progress'] })
    p.send({ type: 'extensions', accept: 'progress' })
    p.send({ type: 'call', id: 'c1', tool: 'work', input: {} })
    await tick()
    p.step({ fraction: 0.5 })
    await tick()
    expect(p.of('progress')).toEqual([])
  })
})

describe('ctx.progress in core', () => {
  it('is a progress event with the call, and is ignored after the call ended or when nothing listens', async () => {
    const tm = createTestToolmark({ dev: false })
    let ctx: ToolContext | undefined
    tm.register({
      name: 'w',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, c: ToolContext) => {
        ctx = c
        c.progress({ fraction: 2, message: 'x'.repeat(300) })
        return ok()
      },
    })
    const events: unknown[] = []
    tm.events.on('progress', (e) => events.push(e))
    await tm.call('w', {}, { caller: 'test', callId: 'id-1' })
    ctx?.progress({ fraction: 1 })
    expect(events).toEqual([{ callId: 'id-1', tool: 'w', caller: 'test', message: 'x'.repeat(200) }])
  })
})
