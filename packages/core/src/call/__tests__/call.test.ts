import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { prodToolmark, searchTool, tick } from '../../__tests__/helpers.ts'
import { isToolmarkError } from '../../errors.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { cancelled, error, invalid, ok } from '../../tool/result.ts'
import type { RunResult, ToolContext, ToolResult } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
})

const ro = { readOnly: true }

describe('tm.call never throws', () => {
  it('returns ok with the typed, validated input', async () => {
    const tm = createTestToolmark()
    tm.register(searchTool)
    expect(await tm.call('search', { query: 'robotics' }, { caller: 'inapp' })).toEqual({
      status: 'ok',
      data: { query: 'robotics' },
    })
  })

  it('answers invalid with dot paths and messages, and run never sees bad input', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    tm.register({
      name: 'signup',
      description: 'd',
      hints: ro,
      input: z.object({ email: z.email(), cards: z.array(z.object({ cvc: z.string().length(3) })) }),
      run,
    })
    const r = await tm.call('signup', { email: 'x', cards: [{ cvc: '1' }] }, { caller: 'test' })
    expect(r.status).toBe('invalid')
    const paths = r.status === 'invalid' ? r.issues.map((i) => i.path).sort() : []
    expect(paths).toEqual(['cards.0.cvc', 'email'])
    expect(run).not.toHaveBeenCalled()
  })

  it.each([
    [
      'run throws',
      {
        run: () => {
          throw new Error('secret detail')
        },
      },
    ],
    [
      'run rejects',
      {
        run: async () => {
          throw new Error('secret detail')
        },
      },
    ],
    [
      'validator throws',
      {
        input: {
          '~standard': {
            version: 1,
            vendor: 'x',
            validate: () => {
              throw new Error('boom')
            },
          },
        },
        run: () => ok(),
      },
    ],
    [
      'summary throws',
      {
        hints: { consequential: true },
        summary: () => {
          throw new Error('boom')
        },
        run: () => ok(),
      },
    ],
  ])('%s → error "Tool failed" + tool_threw with details only in the event', async (_label, extra) => {
    const { tm, errors } = prodToolmark({ confirmMode: { test: 'deferred' } })
    tm.register({
      name: 't',
      description: 'd',
      hints: ro,
      jsonSchema: { type: 'object' },
      ...(extra as object),
      run: (extra as { run: () => RunResult }).run,
    })
    const r = await tm.call('t', {}, { caller: 'test' })
    expect(r).toEqual({ status: 'error', message: 'Tool failed' })
    expect(JSON.stringify(r)).not.toContain('secret')
    expect(errors.map((e) => e.code)).toContain('tool_threw')
  })

  it('a run returning a non-result is "Tool failed"; undefined means ok()', async () => {
    const { tm } = prodToolmark()
    tm.register({ name: 'a', description: 'd', hints: ro, run: () => 42 as never })
    tm.register({ name: 'b', description: 'd', hints: ro, run: () => undefined })
    tm.register({
      name: 'c',
      description: 'd',
      hints: ro,
      run: () => ({ status: 'needs_confirmation' }) as never,
    })
    expect(await tm.call('a', {}, { caller: 'test' })).toEqual(error('Tool failed'))
    expect(await tm.call('b', {}, { caller: 'test' })).toEqual({ status: 'ok' })
    expect(await tm.call('c', {}, { caller: 'test' })).toEqual(error('Tool failed'))
  })

  it('tools may return invalid, refused, cancelled and error results as they are', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'a',
      description: 'd',
      hints: ro,
      run: () => invalid([{ path: 'x', message: 'taken' }]),
    })
    expect(await tm.call('a', {}, { caller: 'test' })).toEqual({
      status: 'invalid',
      issues: [{ path: 'x', message: 'taken' }],
    })
  })
})

describe('concurrency: one call per scope at a time, 32 pending', () => {
  it('serializes calls per scope in arrival order and runs scopes in parallel', async () => {
    const tm = createTestToolmark()
    const log: string[] = []
    const gates = new Map<string, () => void>()
    const slow = (label: string) => ({
      name: label,
      description: 'd',
      hints: ro,
      run: () =>
        new Promise<RunResult>((resolve) => {
          log.push(`start ${label}`)
          gates.set(label, () => {
            log.push(`end ${label}`)
            resolve(ok())
          })
        }),
    })
    const a = tm.scope('a')
    const b = tm.scope('b')
    a.register(slow('one'))
    a.register(slow('two'))
    b.register(slow('three'))
    const p1 = tm.call('a.one', {}, { caller: 'test' })
    const p2 = tm.call('a.two', {}, { caller: 'test' })
    const p3 = tm.call('b.three', {}, { caller: 'test' })
    await tick()
    expect(log).toEqual(['start one', 'start three'])
    gates.get('one')!()
    await tick()
    expect(log).toEqual(['start one', 'start three', 'end one', 'start two'])
    gates.get('two')!()
    gates.get('three')!()
    expect(await Promise.all([p1, p2, p3])).toEqual([ok(), ok(), ok()])
  })

  it('refuses busy above 32 pending calls on one scope', async () => {
    const tm = createTestToolmark()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    tm.register({
      name: 'w',
      description: 'd',
      hints: ro,
      run: async () => {
        await gate
        return ok()
      },
    })
    const calls = Array.from({ length: 33 }, () => tm.call('w', {}, { caller: 'test' }))
    expect(await calls[32]).toEqual({ status: 'refused', code: 'busy', message: expect.any(String) })
    release()
    const done = await Promise.all(calls.slice(0, 32))
    expect(done.every((r) => r.status === 'ok')).toBe(true)
    expect(await tm.call('w', {}, { caller: 'test' })).toEqual(ok())
  })

  it('a tool calling its own scope from run does not hang: the outer deadline frees it', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ callTimeoutMs: 1000, abortGraceMs: 100 })
    const s = tm.scope('s')
    s.register({ name: 'inner', description: 'd', hints: ro, run: () => ok('inner') })
    let innerResult: ToolResult | undefined
    s.register({
      name: 'outer',
      description: 'd',
      hints: ro,
      run: async () => {
        innerResult = await tm.call('s.inner', {}, { caller: 'test' })
        return ok('outer')
      },
    })
    const outer = tm.call('s.outer', {}, { caller: 'test' })
    await vi.advanceTimersByTimeAsync(1100)
    // The queued inner call is cancelled at its deadline, which lets the outer run finish within its grace period.
    expect(innerResult).toEqual(cancelled('signal'))
    expect(await outer).toEqual(ok('outer'))
  })
})

describe('deadlines and cancellation', () => {
  it('aborts ctx.signal on the caller signal and answers cancelled signal', async () => {
    const tm = createTestToolmark()
    let seen: AbortSignal | undefined
    tm.register({
      name: 'slow',
      description: 'd',
      hints: ro,
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((_resolve, reject) => {
          seen = ctx.signal
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))
        }),
    })
    const ac = new AbortController()
    const p = tm.call('slow', {}, { caller: 'test', signal: ac.signal })
    await tick()
    ac.abort()
    expect(await p).toEqual(cancelled('signal'))
    expect(seen?.aborted).toBe(true)
  })

  it('an already aborted signal never runs the tool', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    tm.register({ name: 'x', description: 'd', hints: ro, run })
    expect(await tm.call('x', {}, { caller: 'test', signal: AbortSignal.abort() })).toEqual(
      cancelled('signal'),
    )
    expect(run).not.toHaveBeenCalled()
  })

  it('times out at callTimeoutMs, waits the grace period, then reports late_result and never a second result', async () => {
    vi.useFakeTimers()
    const { tm, errors } = prodToolmark({ callTimeoutMs: 500, abortGraceMs: 200 })
    let finish: () => void = () => {}
    tm.register({
      name: 'stuck',
      description: 'd',
      hints: ro,
      run: () =>
        new Promise<RunResult>((resolve) => {
          finish = () => resolve(ok('late'))
        }),
    })
    const results: ToolResult[] = []
    const p = tm.call('stuck', {}, { caller: 'test' }).then((r) => results.push(r))
    await vi.advanceTimersByTimeAsync(600)
    expect(results).toEqual([])
    await vi.advanceTimersByTimeAsync(200)
    await p
    expect(results).toEqual([cancelled('signal')])
    finish()
    await vi.advanceTimersByTimeAsync(0)
    expect(results).toHaveLength(1)
    expect(errors.map((e) => e.code)).toEqual(['late_result'])
  })

  it('a tool that settles within the grace period keeps its own result', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ callTimeoutMs: 100, abortGraceMs: 1000 })
    tm.register({
      name: 'a',
      description: 'd',
      hints: ro,
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve(ok('stopped cleanly'))),
        ),
    })
    const p = tm.call('a', {}, { caller: 'test' })
    await vi.advanceTimersByTimeAsync(150)
    expect(await p).toEqual(ok('stopped cleanly'))
  })
})

describe('output, undo, files', () => {
  it('validates output only in development (output_invalid)', async () => {
    const def = {
      name: 'o',
      description: 'd',
      hints: ro,
      output: z.object({ n: z.number() }),
      run: () => ok({ n: 'x' }) as never,
    }
    const dev = createTestToolmark()
    const devErrors: string[] = []
    dev.events.on('error', (e) => devErrors.push(e.code))
    dev.register(def)
    await dev.call('o', {}, { caller: 'test' })
    expect(devErrors).toContain('output_invalid')
    const { tm, errors } = prodToolmark()
    tm.register(def)
    await tm.call('o', {}, { caller: 'test' })
    expect(errors).toEqual([])
  })

  it('undo runs the registered restorer once, then refuses undo_unavailable', async () => {
    const tm = createTestToolmark()
    const items = new Set(['a'])
    tm.register({
      name: 'del',
      description: 'd',
      hints: ro,
      run: (_: unknown, ctx: ToolContext) => {
        items.delete('a')
        ctx.registerUndo(() => items.add('a'))
        return ok()
      },
    })
    await tm.call('del', {}, { caller: 'test', callId: 'c1' })
    expect(items.has('a')).toBe(false)
    expect((await tm.undo('c1')).status).toBe('ok')
    expect(items.has('a')).toBe(true)
    expect(await tm.undo('c1')).toMatchObject({ status: 'refused', code: 'undo_unavailable' })
    expect(await tm.undo('never')).toMatchObject({ status: 'refused', code: 'undo_unavailable' })
  })

  it('the undo store keeps the newest 100 entries', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'u',
      description: 'd',
      hints: ro,
      run: (_: unknown, ctx: ToolContext) => {
        ctx.registerUndo(() => ok())
        return ok()
      },
    })
    for (let i = 0; i < 101; i++) await tm.call('u', {}, { caller: 'test', callId: `c${i}` })
    expect(await tm.undo('c0')).toMatchObject({ code: 'undo_unavailable' })
    expect(await tm.undo('c1')).toEqual(ok())
    expect(await tm.undo('c100')).toEqual(ok())
  })

  it('ctx.files.resolve throws ToolmarkError files_not_configured', async () => {
    const tm = createTestToolmark()
    let thrown: unknown
    tm.register({
      name: 'f',
      description: 'd',
      hints: ro,
      run: async (_: unknown, ctx: ToolContext) => {
        try {
          await ctx.files.resolve('x')
        } catch (err) {
          thrown = err
        }
        return ok()
      },
    })
    await tm.call('f', {}, { caller: 'test' })
    expect(isToolmarkError(thrown, 'files_not_configured')).toBe(true)
    expect((thrown as Error).message).toBe('File support is not configured')
  })

  it('emits call and result events with redacted input', async () => {
    const tm = createTestToolmark()
    tm.register({ name: 'pay', description: 'd', hints: ro, sensitivePaths: ['card.cvc'], run: () => ok() })
    const calls: unknown[] = []
    const results: unknown[] = []
    tm.events.on('call', (e) => calls.push(e.input))
    tm.events.on('result', (e) => results.push(e.result))
    await tm.call('pay', { card: { cvc: '123' } }, { caller: 'test' })
    expect(calls).toEqual([{ card: { cvc: '[redacted]' } }])
    expect(results).toEqual([ok()])
  })
})
