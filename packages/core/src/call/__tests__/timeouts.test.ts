/**
 * Deadlines, cancellation and late results: the call deadline, the abort grace period, and results
 * that arrive too late.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { prodToolmark, tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { DEFAULTS } from '../../options.ts'
import { ok } from '../../tool/result.ts'
import type { RunResult, ToolContext, ToolResult } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('deadlines, cancellation and late results', () => {
  it('the documented default callTimeoutMs is 30000 and the grace period 1000', async () => {
    expect(DEFAULTS.callTimeoutMs).toBe(30_000)
    expect(DEFAULTS.abortGraceMs).toBe(1_000)
    expect(DEFAULTS.confirmExpiryMs).toBe(600_000)
    expect(DEFAULTS.budget).toBe(40)
    vi.useFakeTimers()
    const { tm, errors } = prodToolmark()
    let signal: AbortSignal | undefined
    let finish: () => void = () => {}
    tm.register(
      tool('stuck', {
        run: (_: unknown, ctx: ToolContext) =>
          new Promise<RunResult>((resolve) => {
            signal = ctx.signal
            finish = () => resolve(ok('late'))
          }),
      }),
    )
    const results: ToolResult[] = []
    void tm.call('stuck', {}, { caller: 'test', callId: 'slow-1' }).then((r) => results.push(r))
    await vi.advanceTimersByTimeAsync(29_999)
    expect(signal?.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(signal?.aborted).toBe(true)
    await vi.advanceTimersByTimeAsync(999)
    expect(results).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(results).toEqual([{ status: 'cancelled', by: 'signal' }])
    finish()
    await vi.advanceTimersByTimeAsync(0)
    expect(results).toHaveLength(1)
    expect(errors.map((e) => [e.code, e.tool, e.callId])).toEqual([['late_result', 'stuck', 'slow-1']])
  })

  it('a late rejection is a late_result too, never a second result', async () => {
    vi.useFakeTimers()
    const { tm, errors } = prodToolmark({ callTimeoutMs: 100, abortGraceMs: 50 })
    let fail: () => void = () => {}
    tm.register(
      tool('stuck', {
        run: () =>
          new Promise<RunResult>((_resolve, reject) => {
            fail = () => reject(new Error('late'))
          }),
      }),
    )
    const p = tm.call('stuck', {}, { caller: 'test' })
    await vi.advanceTimersByTimeAsync(150)
    expect(await p).toEqual({ status: 'cancelled', by: 'signal' })
    fail()
    await vi.advanceTimersByTimeAsync(0)
    expect(errors.map((e) => e.code)).toEqual(['late_result'])
  })
})
