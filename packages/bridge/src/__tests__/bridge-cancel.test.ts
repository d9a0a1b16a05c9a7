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

  it('cancel of a call answered needs_confirmation does nothing: the confirmation stays approvable', async () => {
    const { tm, send, resultOf, received } = page()
    const run = createTool(tm)
    send({ type: 'call', id: 'c', tool: 'create', input: { name: 'A' } })
    await tick()
    const { confirmId } = resultOf('c') as { confirmId: string }
    send({ type: 'cancel', id: 'c' })
    await tick()
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual(ok({ created: 'A' }))
    await tick()
    expect(run).toHaveBeenCalledTimes(1)
    expect(received.filter((m) => m.type === 'confirmed')).toHaveLength(1)
  })
})
