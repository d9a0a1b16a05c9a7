/**
 * Deferred confirmations over the bridge: `needs_confirmation`, then the outcome as `confirmed`.
 */

import type { Toolmark, ToolResult } from '@toolmark/core'
import { ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CLIENT, createTool, page, tick } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('deferred confirmation over the bridge', () => {
  it('confirmed always follows the result, even when the app answers synchronously from the confirm event', async () => {
    const { tm, send, received } = page()
    createTool(tm)
    tm.events.on('confirm', (e) => {
      if (e.phase === 'requested' && e.request.summary === 'Create "reject-now"')
        void tm.confirmPending(e.request.confirmId, { approved: false })
      if (e.phase === 'requested' && e.request.summary === 'Create "approve-now"')
        void tm.confirmPending(e.request.confirmId, { approved: true })
    })
    send({ type: 'call', id: 'r', tool: 'create', input: { name: 'reject-now' } })
    send({ type: 'call', id: 'a', tool: 'create', input: { name: 'approve-now' } })
    await tick()
    await tick()
    const order = received
      .filter((m) => m.type !== 'manifest')
      .map((m) => (m.type === 'result' ? `result:${m.id}` : `confirmed:${(m.result as ToolResult).status}`))
    expect(order.indexOf('result:r')).toBeLessThan(order.indexOf('confirmed:cancelled'))
    expect(order.indexOf('result:a')).toBeLessThan(order.indexOf('confirmed:ok'))
    const confirmed = received.filter((m) => m.type === 'confirmed')
    expect(confirmed).toHaveLength(2)
    const rConfirm = (received.find((m) => m.id === 'r')?.result as { confirmId: string } | undefined)
      ?.confirmId
    expect(confirmed).toContainEqual({
      protocol: 1,
      type: 'confirmed',
      clientId: CLIENT,
      confirmId: rConfirm,
      result: { status: 'cancelled', by: 'operator' },
    })
  })

  it('confirmed for expiry with no user action, scope disposal, and a stale registration', async () => {
    vi.useFakeTimers()
    const { tm, send, received } = page({ confirmExpiryMs: 1_000 })
    createTool(tm)
    const s = tm.scope('s')
    createTool(s as unknown as Toolmark)
    const swapped = tm.scope('k')
    const h = swapped.register({
      name: 'make',
      description: 'd',
      hints: { consequential: true },
      run: () => ok(),
    })
    send({ type: 'call', id: 'exp', tool: 'create', input: { name: 'A' } })
    send({ type: 'call', id: 'scoped', tool: 's.create', input: { name: 'B' } })
    send({ type: 'call', id: 'swap', tool: 'k.make', input: {} })
    await vi.advanceTimersByTimeAsync(0)
    const idOf = (id: string) =>
      (received.find((m) => m.id === id)?.result as { confirmId: string } | undefined)?.confirmId ?? ''
    const [exp, scoped, swap] = [idOf('exp'), idOf('scoped'), idOf('swap')]
    s.dispose()
    h.dispose()
    await tm.confirmPending(swap, { approved: true })
    await vi.advanceTimersByTimeAsync(1_000)
    const confirmed = received.filter((m) => m.type === 'confirmed')
    const expired = {
      status: 'refused',
      code: 'confirmation_expired',
      message: 'The confirmation expired or was already used',
    }
    expect(confirmed).toEqual([
      { protocol: 1, type: 'confirmed', clientId: CLIENT, confirmId: scoped, result: expired },
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId: swap,
        result: {
          status: 'refused',
          code: 'stale',
          message: 'Tool changed since confirmation was requested',
        },
      },
      { protocol: 1, type: 'confirmed', clientId: CLIENT, confirmId: exp, result: expired },
    ])
  })

  it('an invalid approval sends no confirmed (not terminal); the later approval sends exactly one', async () => {
    const { tm, send, resultOf, received } = page()
    createTool(tm)
    send({ type: 'call', id: 'c', tool: 'create', input: { name: 'A' } })
    await tick()
    const { confirmId } = resultOf('c') as { confirmId: string }
    expect((await tm.confirmPending(confirmId, { approved: true, input: { name: 1 } })).status).toBe(
      'invalid',
    )
    await tick()
    expect(received.filter((m) => m.type === 'confirmed')).toEqual([])
    await tm.confirmPending(confirmId, { approved: true })
    await tm.confirmPending(confirmId, { approved: true })
    await tick()
    expect(received.filter((m) => m.type === 'confirmed')).toEqual([
      expect.objectContaining({ confirmId, result: { status: 'ok', data: { created: 'A' } } }),
    ])
  })

  it('confirmations the bridge did not create (direct tm.call) are never sent as confirmed', async () => {
    const { tm, received } = page()
    createTool(tm)
    const r = await tm.call('create', { name: 'A' }, { caller: 'inapp' })
    await tm.confirmPending((r as { confirmId: string }).confirmId, { approved: true })
    await tick()
    expect(received.filter((m) => m.type === 'confirmed')).toEqual([])
  })

  it('nothing the agent sends can approve (confirmed/approve messages are dropped)', async () => {
    const { tm, send, agent, resultOf, errors } = page()
    const run = createTool(tm)
    send({ type: 'call', id: 'c', tool: 'create', input: { name: 'A' } })
    await tick()
    const { confirmId } = resultOf('c') as { confirmId: string }
    send({ type: 'confirmed', confirmId, result: { status: 'ok' } })
    send({ type: 'approve', confirmId })
    send({ type: 'call', id: 'c2', tool: 'create', input: { name: 'A' }, confirmId })
    agent.send({
      protocol: 1,
      clientId: CLIENT,
      type: 'call',
      id: 'c3',
      tool: 'create',
      input: { name: 'A', confirmId },
    })
    await tick()
    expect(run).not.toHaveBeenCalled()
    expect(errors).toEqual(['invalid_message', 'invalid_message', 'invalid_message'])
    expect((resultOf('c3') as ToolResult).status).toBe('needs_confirmation')
    expect(tm.pendingConfirmations().map((p) => p.confirmId)).toContain(confirmId)
  })
})
