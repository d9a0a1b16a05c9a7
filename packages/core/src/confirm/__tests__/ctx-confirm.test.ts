/**
 * `ctx.confirm` inside `run`, per caller: it never throws.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { tick } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'
import type {
  ConfirmRequest,
  CtxConfirmOutcome,
  ToolContext,
  ToolDefinition,
  ToolmarkErrorEvent,
  ToolResult,
} from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('ctx.confirm per caller (never throws)', () => {
  const midDef = (out: CtxConfirmOutcome[]): ToolDefinition => ({
    name: 'mid',
    description: 'd',
    hints: { readOnly: true },
    run: async (_: unknown, ctx: ToolContext) => {
      out.push(await ctx.confirm({ summary: 'Also delete drafts?' }))
      return ok()
    },
  })

  it('human → approved without asking; inline caller → the handler; rejection → rejected', async () => {
    const out: CtxConfirmOutcome[] = []
    const handler = vi.fn((r: ConfirmRequest) => ({ approved: r.caller === 'mcp' }) as never)
    const tm = createTestToolmark({ confirm: handler })
    tm.register(midDef(out))
    await tm.call('mid', {}, { caller: 'human' })
    await tm.call('mid', {}, { caller: 'mcp' })
    await tm.call('mid', {}, { caller: 'webmcp' })
    expect(out).toEqual([{ approved: true }, { approved: true }, { approved: false, reason: 'rejected' }])
    expect(handler).toHaveBeenCalledTimes(2)
    expect(handler.mock.calls[0]?.[0]).toMatchObject({
      kind: 'ctx',
      summary: 'Also delete drafts?',
      tool: 'mid',
    })
  })

  it('deferred caller or no handler → confirmation_unavailable; ctx_confirm_unavailable only in development', async () => {
    for (const dev of [true, false]) {
      environment.setIsServer(false)
      const out: CtxConfirmOutcome[] = []
      const tm = createToolmark({ dev })
      const events: ToolmarkErrorEvent[] = []
      tm.events.on('error', (e) => events.push(e))
      tm.register(midDef(out))
      await tm.call('mid', {}, { caller: 'inapp' }) // deferred
      await tm.call('mid', {}, { caller: 'webmcp' }) // inline without handler
      expect(out).toEqual([
        { approved: false, reason: 'confirmation_unavailable' },
        { approved: false, reason: 'confirmation_unavailable' },
      ])
      expect(events.map((e) => [e.code, e.level])).toEqual(
        dev
          ? [
              ['ctx_confirm_unavailable', 'warning'],
              ['ctx_confirm_unavailable', 'warning'],
            ]
          : [],
      )
    }
  })

  it('an edit with an unrestorable placeholder → { approved: false, reason: "invalid" }; a valid edit returns the real input', async () => {
    const out: CtxConfirmOutcome[] = []
    let answer: (r: ConfirmRequest) => unknown = () => ({ approved: true })
    const tm = createTestToolmark({ confirm: (r) => answer(r) as never })
    tm.register({
      name: 'mid',
      description: 'd',
      hints: { readOnly: true },
      sensitivePaths: ['secret'],
      run: async (_: unknown, ctx: ToolContext) => {
        out.push(await ctx.confirm({ summary: 's' }))
        return ok()
      },
    })
    answer = (r) => ({ approved: true, input: { ...(r.input as object), other: '[redacted]' } })
    await tm.call('mid', { secret: 's3', other: 'o' }, { caller: 'tour' })
    answer = (r) => ({ approved: true, input: { ...(r.input as object), other: 'o2' } })
    await tm.call('mid', { secret: 's3', other: 'o' }, { caller: 'tour' })
    expect(out).toEqual([
      { approved: false, reason: 'invalid' },
      { approved: true, input: { secret: 's3', other: 'o2' } },
    ])
  })

  it('bounded by the expiry (not callTimeoutMs): an unanswered ctx.confirm is expired, the call is not cancelled meanwhile', async () => {
    vi.useFakeTimers()
    const out: CtxConfirmOutcome[] = []
    const tm = createTestToolmark({
      confirm: () => new Promise(() => {}),
      callTimeoutMs: 1_000,
      confirmExpiryMs: 5_000,
    })
    tm.register(midDef(out))
    const results: ToolResult[] = []
    void tm.call('mid', {}, { caller: 'webmcp' }).then((r) => results.push(r))
    await vi.advanceTimersByTimeAsync(4_999)
    expect(out).toEqual([])
    expect(results).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(out).toEqual([{ approved: false, reason: 'expired' }])
    expect(results).toEqual([ok()])
  })

  it('bounded by the call signal: aborting the call ends the open ctx.confirm', async () => {
    const out: CtxConfirmOutcome[] = []
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler })
    tm.register(midDef(out))
    const ac = new AbortController()
    const p = tm.call('mid', {}, { caller: 'webmcp', signal: ac.signal })
    await tick()
    expect(queue.getPending()).toHaveLength(1)
    ac.abort()
    await p
    expect(out).toEqual([{ approved: false, reason: 'cancelled' }])
    expect(queue.getPending()).toEqual([])
  })

  it('the call deadline pauses while ctx.confirm is open and resumes with the time that was left', async () => {
    vi.useFakeTimers()
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler, callTimeoutMs: 1_000, abortGraceMs: 10_000 })
    let abortedAt = -1
    const start = Date.now()
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: async (_: unknown, ctx: ToolContext) => {
        await new Promise((r) => setTimeout(r, 600))
        await ctx.confirm({ summary: 'continue?' })
        await new Promise<void>((r) =>
          ctx.signal.addEventListener('abort', () => {
            abortedAt = Date.now() - start
            r()
          }),
        )
        return ok('stopped')
      },
    })
    const p = tm.call('slow', {}, { caller: 'mcp' })
    await vi.advanceTimersByTimeAsync(600)
    expect(queue.getPending()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(5_000) // far past the 1000 ms deadline: paused
    expect(abortedAt).toBe(-1)
    queue.approve(queue.getPending()[0]!.confirmId)
    await vi.advanceTimersByTimeAsync(399)
    expect(abortedAt).toBe(-1)
    await vi.advanceTimersByTimeAsync(1)
    expect(abortedAt).toBe(6_000)
    expect(await p).toEqual(ok('stopped'))
  })

  it('never throws, even for a malformed request or a throwing handler', async () => {
    const out: CtxConfirmOutcome[] = []
    const tm = createTestToolmark({
      dev: false,
      confirm: () => {
        throw new Error('handler bug')
      },
    })
    tm.register({
      name: 'mid',
      description: 'd',
      hints: { readOnly: true },
      run: async (_: unknown, ctx: ToolContext) => {
        out.push(await ctx.confirm(undefined as never))
        out.push(await ctx.confirm({ summary: 's', changes: 'nope' as never }))
        return ok()
      },
    })
    expect(await tm.call('mid', {}, { caller: 'webmcp' })).toEqual(ok())
    expect(out.every((o) => o.approved === false)).toBe(true)
  })
})
