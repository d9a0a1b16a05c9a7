/**
 * Cancelling an in-flight call over the bridge.
 */

import type { RunResult, ToolContext } from '@toolmark/core'
import { ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CLIENT, createTool, page, tick } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('cancel', () => {
  it('aborts the in-flight call; its own result follows; cancel itself is never answered', async () => {
    const { tm, send, received, errors } = page()
    let signal: AbortSignal | undefined
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((_resolve, reject) => {
          signal = ctx.signal
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))
        }),
    })
    await tick()
    send({ type: 'call', id: 'long', tool: 'slow', input: {} })
    await tick()
    send({ type: 'cancel', id: 'long' })
    send({ type: 'cancel', id: 'long' })
    send({ type: 'cancel', id: 'unknown-id' })
    await tick()
    expect(signal?.aborted).toBe(true)
    const afterAttach = received.filter((m) => m.type !== 'manifest')
    expect(afterAttach).toEqual([
      {
        protocol: 1,
        type: 'result',
        clientId: CLIENT,
        id: 'long',
        result: { status: 'cancelled', by: 'signal' },
      },
    ])
    expect(errors).toEqual([])
  })

  it('a queued call cancelled before its turn never runs and is answered cancelled signal', async () => {
    const { tm, send, resultOf } = page()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const run = vi.fn(async () => {
      await gate
      return ok()
    })
    tm.register({ name: 'w', description: 'd', hints: { readOnly: true }, run })
    send({ type: 'call', id: 'first', tool: 'w', input: {} })
    send({ type: 'call', id: 'second', tool: 'w', input: {} })
    await tick()
    send({ type: 'cancel', id: 'second' })
    await tick()
    expect(resultOf('second')).toEqual({ status: 'cancelled', by: 'signal' })
    release()
    await tick()
    expect(resultOf('first')).toEqual({ status: 'ok' })
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('a tool that finishes cleanly on abort keeps its own result', async () => {
    const { tm, send, resultOf } = page()
    tm.register({
      name: 'stoppable',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve(ok('partial'))),
        ),
    })
    send({ type: 'call', id: 's', tool: 'stoppable', input: {} })
    await tick()
    send({ type: 'cancel', id: 's' })
    await tick()
    expect(resultOf('s')).toEqual({ status: 'ok', data: 'partial' })
  })

  it('cancel of a call answered needs_confirmation withdraws its card: it expires here and no confirmed is sent', async () => {
    const { tm, send, resultOf, received, errors } = page()
    const run = createTool(tm)
    const settled: unknown[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled') settled.push({ outcome: e.outcome, result: e.result })
    })
    send({ type: 'call', id: 'c', tool: 'create', input: { name: 'A' } })
    send({ type: 'call', id: 'd', tool: 'create', input: { name: 'B' } })
    await tick()
    const { confirmId } = resultOf('c') as { confirmId: string }
    expect(tm.pendingConfirmations()).toHaveLength(2)

    send({ type: 'cancel', id: 'c' })
    await tick()
    expect(tm.pendingConfirmations().map((p) => p.summary)).toEqual(['Create "B"'])
    expect(settled).toEqual([
      {
        outcome: 'expired',
        result: { status: 'refused', code: 'confirmation_expired', message: expect.any(String) },
      },
    ])
    expect(await tm.confirmPending(confirmId, { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
    expect(run).not.toHaveBeenCalled()
    expect(received.filter((m) => m.type === 'confirmed')).toEqual([])

    // A second cancel for it does nothing; the other card is still answered with confirmed as usual.
    send({ type: 'cancel', id: 'c' })
    const other = tm.pendingConfirmations()[0]!.confirmId
    await tm.confirmPending(other, { approved: true })
    await tick()
    expect(received.filter((m) => m.type === 'confirmed')).toEqual([
      { protocol: 1, type: 'confirmed', clientId: CLIENT, confirmId: other, result: ok({ created: 'B' }) },
    ])
    expect(errors).toEqual([])
  })

  it('cancel of a call whose card was already answered changes nothing', async () => {
    const { tm, send, resultOf, received } = page()
    createTool(tm)
    send({ type: 'call', id: 'c', tool: 'create', input: { name: 'A' } })
    await tick()
    const { confirmId } = resultOf('c') as { confirmId: string }
    await tm.confirmPending(confirmId, { approved: false })
    await tick()
    send({ type: 'cancel', id: 'c' })
    await tick()
    expect(received.filter((m) => m.type === 'confirmed')).toEqual([
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId,
        result: { status: 'cancelled', by: 'operator' },
      },
    ])
  })
})
