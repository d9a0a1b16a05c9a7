/**
 * Concurrency: one FIFO queue per scope, at most 32 waiting calls; the 33rd is answered `busy`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { tick, tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('concurrency: per-scope queue, 32 pending, the 33rd is busy', () => {
  it('32 pending calls are accepted, the 33rd is busy; other scopes still run; a transparent scope shares the queue', async () => {
    const tm = createTestToolmark()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const s = tm.scope('s')
    s.register(
      tool('wait', {
        run: async () => {
          await gate
          return ok()
        },
      }),
    )
    s.scope('inner', { transparent: true }).register(tool('same', { run: () => ok('same') }))
    tm.register(tool('other', { run: () => ok('other') }))
    tm.scope('t').register(tool('third', { run: () => ok('third') }))
    const first32 = Array.from({ length: 32 }, () => tm.call('s.wait', {}, { caller: 'test' }))
    const busy = await tm.call('s.wait', {}, { caller: 'test' })
    expect(busy).toEqual({ status: 'refused', code: 'busy', message: expect.any(String) })
    expect(await tm.call('s.same', {}, { caller: 'test' })).toMatchObject({ code: 'busy' })
    expect(await tm.call('other', {}, { caller: 'test' })).toEqual(ok('other'))
    expect(await tm.call('t.third', {}, { caller: 'test' })).toEqual(ok('third'))
    release()
    const results = await Promise.all(first32)
    expect(results.every((r) => r.status === 'ok')).toBe(true)
    expect(await tm.call('s.same', {}, { caller: 'test' })).toEqual(ok('same'))
  })

  it('runs calls of one scope one at a time in arrival order', async () => {
    const tm = createTestToolmark()
    const log: string[] = []
    tm.register(
      tool('step', {
        input: z.object({ n: z.number() }),
        run: async ({ n }: { n: number }) => {
          log.push(`start ${n}`)
          await tick()
          log.push(`end ${n}`)
          return ok(n)
        },
      }),
    )
    const all = await Promise.all([1, 2, 3].map((n) => tm.call('step', { n }, { caller: 'test' })))
    expect(all).toEqual([ok(1), ok(2), ok(3)])
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
  })

  it('a queued call cancelled before its turn never runs and frees its place', async () => {
    const tm = createTestToolmark()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const run = vi.fn(async () => {
      await gate
      return ok()
    })
    tm.register(tool('w', { run }))
    const first = tm.call('w', {}, { caller: 'test' })
    const ac = new AbortController()
    const second = tm.call('w', {}, { caller: 'test', signal: ac.signal })
    const more = Array.from({ length: 30 }, () => tm.call('w', {}, { caller: 'test' }))
    ac.abort()
    expect(await second).toEqual({ status: 'cancelled', by: 'signal' })
    const again = tm.call('w', {}, { caller: 'test' }) // the freed place
    release()
    expect((await first).status).toBe('ok')
    expect((await again).status).toBe('ok')
    await Promise.all(more)
    expect(run).toHaveBeenCalledTimes(32)
  })
})
