/**
 * `tm.call` never throws and never rejects: bad input, bad options and failing tools are results.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { environment } from '../env.ts'
import { createTestToolmark } from '../testing/index.ts'
import { ok } from '../tool/result.ts'
import type { ToolContext, ToolResult } from '../types.ts'
import { prodToolmark, tool, withEvents } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('tm.call never throws and never rejects', () => {
  it('answers every kind of bad argument with a ToolResult', async () => {
    const tm = createTestToolmark()
    tm.register(tool('x'))
    const attempts: Promise<ToolResult>[] = [
      tm.call(undefined as never, {}, { caller: 'test' }),
      tm.call(42 as never, {}, { caller: 'test' }),
      tm.call('x', {}, undefined as never),
      tm.call('x', {}, null as never),
      tm.call('__proto__', {}, { caller: 'test' }),
      tm.call('constructor', {}, { caller: 'test' }),
    ]
    const results = await Promise.all(attempts)
    for (const r of results) expect(['refused', 'error']).toContain(r.status)
  })

  it('a throwing or rejecting run → error "Tool failed" + tool_threw with tool and callId', async () => {
    const { tm, errors } = prodToolmark()
    tm.register(
      tool('sync', {
        run: () => {
          throw new Error('secret detail')
        },
      }),
    )
    tm.register(
      tool('async', {
        run: async () => {
          throw new Error('secret detail')
        },
      }),
    )
    expect(await tm.call('sync', {}, { caller: 'test', callId: 'c-1' })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(await tm.call('async', {}, { caller: 'test', callId: 'c-2' })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(errors.map((e) => [e.code, e.tool, e.callId])).toEqual([
      ['tool_threw', 'sync', 'c-1'],
      ['tool_threw', 'async', 'c-2'],
    ])
    expect(errors[0]?.cause).toBeInstanceOf(Error)
  })

  it('a throwing validator, summary or snapshot → error "Tool failed" + tool_threw, run never called', async () => {
    const run = vi.fn(() => ok())
    const throwing: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new Error('validator bug')
        },
      },
    }
    const { tm, errors } = prodToolmark()
    tm.register(tool('v', { input: throwing, jsonSchema: { type: 'object' }, run }))
    tm.register(
      tool('s', {
        hints: { consequential: true },
        summary: () => {
          throw new Error('summary bug')
        },
        run,
      }),
    )
    tm.register(
      tool('n', {
        hints: { consequential: true },
        snapshot: () => {
          throw new Error('snapshot bug')
        },
        run,
      }),
    )
    const failed = { status: 'error', message: 'Tool failed' }
    expect(await tm.call('v', {}, { caller: 'test' })).toEqual(failed)
    expect(await tm.call('s', {}, { caller: 'inapp' })).toEqual(failed)
    expect(await tm.call('n', {}, { caller: 'inapp' })).toEqual(failed)
    expect(run).not.toHaveBeenCalled()
    expect(errors.map((e) => e.code)).toEqual(['tool_threw', 'tool_threw', 'tool_threw'])
  })

  it('a throwing snapshot is named as such, inline, deferred and when a deferred approval is checked', async () => {
    const run = vi.fn(() => ok())
    const { tm, errors } = withEvents()
    let fail = true
    tm.register(
      tool('n', {
        hints: { consequential: true },
        snapshot: () => {
          if (fail) throw new Error('snapshot bug')
          return { a: 1 }
        },
        run,
      }),
    )
    const failed = { status: 'error', message: 'Tool failed' }
    expect(await tm.call('n', {}, { caller: 'test' })).toEqual(failed)
    expect(await tm.call('n', {}, { caller: 'inapp' })).toEqual(failed)
    fail = false
    const asked = await tm.call('n', {}, { caller: 'inapp' })
    fail = true
    if (asked.status !== 'needs_confirmation') throw new Error('expected a confirmation')
    expect(await tm.confirmPending(asked.confirmId, { approved: true })).toEqual(failed)
    expect(run).not.toHaveBeenCalled()
    expect(errors.map((e) => [e.code, e.message, e.tool])).toEqual([
      ['tool_threw', 'The snapshot of "n" threw', 'n'],
      ['tool_threw', 'The snapshot of "n" threw', 'n'],
      ['tool_threw', 'The snapshot of "n" threw', 'n'],
    ])
  })

  it('invalid input: issues with dot-joined paths ("" for the root) and run never sees it', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    tm.register(
      tool('pay', {
        input: z.object({ cards: z.array(z.object({ cvc: z.string().length(3) })) }),
        run,
      }),
    )
    const r = await tm.call('pay', { cards: [{ cvc: '123' }, { cvc: 7 }] }, { caller: 'test' })
    expect(r).toEqual({ status: 'invalid', issues: [{ path: 'cards.1.cvc', message: expect.any(String) }] })
    const root = await tm.call('pay', 'nope', { caller: 'test' })
    expect(root).toEqual({ status: 'invalid', issues: [{ path: '', message: expect.any(String) }] })
    expect(run).not.toHaveBeenCalled()
  })

  it('ctx carries callId (the caller-supplied one or a fresh UUID v4), caller and a signal', async () => {
    const seen: Array<{ callId: string; caller: string; aborted: boolean }> = []
    const tm = createTestToolmark()
    tm.register(
      tool('c', {
        run: (_: unknown, ctx: ToolContext) => {
          seen.push({ callId: ctx.callId, caller: ctx.caller, aborted: ctx.signal.aborted })
          return ok()
        },
      }),
    )
    await tm.call('c', {}, { caller: 'tour', callId: 'mine' })
    await tm.call('c', {}, { caller: 'mcp' })
    expect(seen[0]).toEqual({ callId: 'mine', caller: 'tour', aborted: false })
    expect(seen[1]?.caller).toBe('mcp')
    expect(seen[1]?.callId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})
