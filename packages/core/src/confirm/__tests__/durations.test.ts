/**
 * Duration options behave as written, however long: `setTimeout` fires after 1 ms for a delay above
 * 2^31 − 1 ms, so long durations are waited out in steps.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { RunResult } from '../../types.ts'

const DAY = 86_400_000
const THIRTY_DAYS = 30 * DAY

afterEach(() => {
  vi.useRealTimers()
})

describe('durations above 2^31 − 1 ms', () => {
  it('a 30-day confirmExpiryMs keeps an inline confirmation open, and expires it after 30 days', async () => {
    vi.useFakeTimers()
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler, confirmExpiryMs: THIRTY_DAYS })
    const run = vi.fn(() => ok('ran'))
    tm.register({ name: 'pay', description: 'd', hints: { consequential: true }, run })
    let result: unknown
    void tm.call('pay', {}, { caller: 'webmcp' }).then((r) => (result = r))
    await vi.advanceTimersByTimeAsync(1_000)
    expect(queue.getPending()).toHaveLength(1)
    expect(result).toBeUndefined()
    await vi.advanceTimersByTimeAsync(29 * DAY)
    expect(queue.getPending()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(DAY)
    expect(result).toMatchObject({ status: 'refused', code: 'confirmation_expired' })
    expect(run).not.toHaveBeenCalled()
  })

  it('a 30-day confirmExpiryMs keeps a deferred confirmation pending', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ confirmExpiryMs: THIRTY_DAYS })
    tm.register({ name: 'create', description: 'd', hints: { consequential: true }, run: () => ok('made') })
    const asked = await tm.call('create', {}, { caller: 'inapp' })
    await vi.advanceTimersByTimeAsync(DAY)
    expect(tm.pendingConfirmations()).toHaveLength(1)
    const confirmId = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual({ status: 'ok', data: 'made' })
  })

  it('a 30-day callTimeoutMs neither cancels a running call early nor re-fires its timer every millisecond', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ callTimeoutMs: THIRTY_DAYS })
    let finish!: () => void
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: () => new Promise<RunResult>((r) => (finish = () => r(ok('done')))),
    })
    let result: unknown
    void tm.call('slow', {}, { caller: 'inapp' }).then((r) => (result = r))
    const timers = vi.spyOn(globalThis, 'setTimeout')
    await vi.advanceTimersByTimeAsync(1_000)
    expect(result).toBeUndefined()
    expect(timers.mock.calls.length).toBeLessThan(5)
    finish()
    await vi.advanceTimersByTimeAsync(0)
    expect(result).toEqual({ status: 'ok', data: 'done' })
  })

  it('a 30-day abortGraceMs gives an aborted tool its whole grace period', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ abortGraceMs: THIRTY_DAYS })
    let finish!: () => void
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: () => new Promise<RunResult>((r) => (finish = () => r(ok('finished anyway')))),
    })
    const controller = new AbortController()
    let result: unknown
    void tm.call('slow', {}, { caller: 'inapp', signal: controller.signal }).then((r) => (result = r))
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    await vi.advanceTimersByTimeAsync(DAY)
    expect(result).toBeUndefined()
    finish()
    await vi.advanceTimersByTimeAsync(0)
    expect(result).toEqual({ status: 'ok', data: 'finished anyway' })
  })
})
