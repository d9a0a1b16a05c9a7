/**
 * Confirmation expiry: checked against the clock at approval time (expired when now >= expiresAt).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDef, EXPIRED, needs, withEvents } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('expiry: checked against the clock at approval time (expired when now >= expiresAt)', () => {
  it('deferred: 1 ms before expiresAt runs; exactly at expiresAt is expired and nothing runs (no timer fired)', async () => {
    vi.useFakeTimers()
    vi.setSystemTime(5_000_000)
    const run = vi.fn(() => ok('ran'))
    const { tm, settled } = withEvents()
    tm.register(createDef(run))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    const b = needs(await tm.call('create', { name: 'B' }, { caller: 'inapp' }))
    const expiresAt = tm.pendingConfirmations()[0]!.expiresAt
    expect(expiresAt).toBe(5_000_000 + 600_000)
    vi.setSystemTime(expiresAt - 1)
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok('ran'))
    vi.setSystemTime(expiresAt)
    expect(await tm.confirmPending(b.confirmId, { approved: true })).toEqual(EXPIRED)
    expect(run).toHaveBeenCalledTimes(1)
    expect(settled.map((s) => s.outcome)).toEqual(['approved', 'expired'])
    expect(settled[1]?.result).toEqual(EXPIRED)
  })

  it('deferred: a rejection after expiry is expired too, and the confirmation is gone', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark()
    tm.register(createDef())
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    vi.setSystemTime(Date.now() + 600_000)
    expect(await tm.confirmPending(a.confirmId, { approved: false })).toEqual(EXPIRED)
    expect(tm.pendingConfirmations()).toEqual([])
  })

  it('inline: a handler answer exactly at expiresAt is confirmation_expired and the tool never runs', async () => {
    vi.useFakeTimers()
    vi.setSystemTime(9_000_000)
    const queue = createConfirmQueue()
    const run = vi.fn(() => ok('ran'))
    const tm = createTestToolmark({ confirm: queue.handler, confirmExpiryMs: 60_000 })
    tm.register(createDef(run))
    const late = tm.call('create', { name: 'L' }, { caller: 'webmcp' })
    const early = tm.call('create', { name: 'E' }, { caller: 'mcp' })
    await vi.advanceTimersByTimeAsync(0)
    const [lateReq, earlyReq] = queue.getPending()
    expect(lateReq?.expiresAt).toBe(9_000_000 + 60_000)
    vi.setSystemTime(9_060_000 - 1)
    queue.approve(earlyReq!.confirmId)
    expect(await early).toEqual(ok('ran'))
    vi.setSystemTime(9_060_000)
    queue.approve(lateReq!.confirmId)
    expect(await late).toEqual(EXPIRED)
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('a deferred confirmation nobody answers expires by timer (settled event, removed from the list)', async () => {
    vi.useFakeTimers()
    const { tm, settled } = withEvents({ confirmExpiryMs: 1_000 })
    tm.register(createDef())
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    await vi.advanceTimersByTimeAsync(999)
    expect(tm.pendingConfirmations()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(tm.pendingConfirmations()).toEqual([])
    expect(settled).toEqual([
      expect.objectContaining({ confirmId: a.confirmId, outcome: 'expired', result: EXPIRED }),
    ])
  })

  it('an inline request nobody answers expires: the call answers confirmation_expired and request.signal aborts', async () => {
    vi.useFakeTimers()
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler, confirmExpiryMs: 1_000 })
    tm.register(createDef())
    const p = tm.call('create', { name: 'A' }, { caller: 'tour' })
    await vi.advanceTimersByTimeAsync(0)
    const [req] = queue.getPending()
    expect(req?.signal.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(await p).toEqual(EXPIRED)
    expect(req?.signal.aborted).toBe(true)
    expect(queue.getPending()).toEqual([])
  })
})
