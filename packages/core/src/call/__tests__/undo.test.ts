/**
 * Undo: `ctx.registerUndo` and `tm.undo(callId)`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ToolContext } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('undo', () => {
  it('undo_unavailable when none, after use, and for the evicted 1st of 101 entries', async () => {
    const tm = createTestToolmark()
    tm.register(
      tool('u', {
        run: (_: unknown, ctx: ToolContext) => {
          ctx.registerUndo(() => ok(ctx.callId))
          return ok()
        },
      }),
    )
    for (let i = 0; i < 100; i++) await tm.call('u', {}, { caller: 'test', callId: `c${i}` })
    expect(await tm.undo('c0')).toEqual(ok('c0'))
    expect(await tm.undo('c0')).toMatchObject({ status: 'refused', code: 'undo_unavailable' })
    for (let i = 100; i < 102; i++) await tm.call('u', {}, { caller: 'test', callId: `c${i}` })
    // c0 was consumed, so 101 entries were stored after it: c1 is the one evicted.
    expect(await tm.undo('c1')).toMatchObject({ code: 'undo_unavailable' })
    expect(await tm.undo('c2')).toEqual(ok('c2'))
    expect(await tm.undo('c101')).toEqual(ok('c101'))
  })
})
