/**
 * `tm.subscribe` and `tm.events`: when each fires and what it carries; a throwing listener never
 * breaks the registry.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { environment } from '../env.ts'
import { createTestToolmark } from '../testing/index.ts'
import { ok } from '../tool/result.ts'
import { tick, tool } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('subscribe and events', () => {
  it('a burst of registrations publishes once, with the final rev; unsubscribe stops it', async () => {
    const tm = createTestToolmark()
    const seen: number[] = []
    const changes: number[] = []
    const off = tm.subscribe((rev) => seen.push(rev))
    tm.events.on('change', (e) => changes.push(e.rev))
    const handles = Array.from({ length: 1000 }, (_, i) => tm.register(tool(`t${i}`)))
    for (const h of handles) h.dispose()
    expect(seen).toEqual([])
    await tick()
    expect(seen).toEqual([2000])
    expect(changes).toEqual([2000])
    off()
    tm.register(tool('later'))
    await tick()
    expect(seen).toEqual([2000])
    expect(changes).toEqual([2000, 2001])
  })

  it('every events.on returns an unsubscribe; a throwing listener never breaks a call', async () => {
    const tm = createTestToolmark()
    tm.register(tool('x', { run: () => ok(1) }))
    await tick()
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    const got: string[] = []
    const offs = (['call', 'result', 'confirm', 'interaction', 'change', 'error'] as const).map((name) =>
      tm.events.on(name, () => got.push(name)),
    )
    tm.events.on('call', () => {
      throw new Error('listener bug')
    })
    expect(await tm.call('x', {}, { caller: 'test' })).toEqual(ok(1))
    expect(got).toEqual(['call', 'result'])
    for (const off of offs) off()
    await tm.call('x', {}, { caller: 'test' })
    expect(got).toEqual(['call', 'result'])
    error.mockRestore()
  })

  it('call and result events carry callId, tool, caller and (redacted) input', async () => {
    const tm = createTestToolmark()
    tm.register(tool('pay', { sensitivePaths: ['cards[].cvc'], run: () => ok('paid') }))
    const calls: unknown[] = []
    const results: unknown[] = []
    tm.events.on('call', (e) => calls.push(e))
    tm.events.on('result', (e) => results.push(e))
    await tm.call('pay', { cards: [{ cvc: '123' }, { cvc: '456' }] }, { caller: 'mcp', callId: 'k' })
    expect(calls).toEqual([
      {
        callId: 'k',
        tool: 'pay',
        caller: 'mcp',
        input: { cards: [{ cvc: '[redacted]' }, { cvc: '[redacted]' }] },
      },
    ])
    expect(results).toEqual([
      {
        callId: 'k',
        tool: 'pay',
        caller: 'mcp',
        result: ok('paid'),
        durationMs: expect.any(Number),
        queuedMs: expect.any(Number),
      },
    ])
  })

  it('state() is redacted at sensitivePaths', () => {
    const tm = createTestToolmark()
    tm.register(
      tool('form', {
        sensitivePaths: ['password'],
        state: () => ({ email: 'a@b.c', password: 'hunter2' }),
      }),
    )
    expect(tm.state('form')).toEqual({ email: 'a@b.c', password: '[redacted]' })
  })
})
