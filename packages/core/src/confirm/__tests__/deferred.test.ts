/**
 * Deferred confirmations (the default for `inapp`): `needs_confirmation`, `tm.confirmPending`, the cap
 * of 100 pending, and scope disposal.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createDef, EXPIRED, needs, OPERATOR, tick, withEvents } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ToolContext, ToolResult } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('deferred mode (default for inapp)', () => {
  it('returns exactly { status, confirmId, summary, changes: [] } and runs nothing', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    tm.register(createDef(run))
    const r = await tm.call('create', { name: 'Robotics' }, { caller: 'inapp' })
    expect(r).toEqual({
      status: 'needs_confirmation',
      confirmId: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      summary: 'Create challenge "Robotics"',
      changes: [],
    })
    expect(run).not.toHaveBeenCalled()
  })

  it('the summary falls back to the title, then the name; destructive tools are flagged', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'a',
      description: 'd',
      title: 'Title A',
      hints: { consequential: true },
      run: () => ok(),
    })
    tm.register({ name: 'b', description: 'd', hints: { destructive: true }, run: () => ok() })
    expect(needs(await tm.call('a', {}, { caller: 'inapp' })).summary).toBe('Title A')
    expect(needs(await tm.call('b', {}, { caller: 'inapp' })).summary).toBe('b')
    const cards = tm.pendingConfirmations()
    expect(cards.map((c) => [c.tool, c.destructive])).toEqual([
      ['a', false],
      ['b', true],
    ])
    expect(cards[1]).not.toHaveProperty('title')
  })

  it('the card carries tool, title, summary, target, destructive, caller, callId, createdAt and expiresAt', async () => {
    vi.useFakeTimers()
    vi.setSystemTime(1_700_000_000_000)
    const tm = createTestToolmark()
    tm.register(createDef())
    tm.register({
      name: 'del',
      description: 'Delete',
      input: z.object({ name: z.number() }),
      hints: { destructive: true },
      run: () => ok(),
    })
    const r = needs(await tm.call('create', { name: 'Robotics' }, { caller: 'inapp', callId: 'call-7' }))
    await tm.call('del', { name: 5 }, { caller: 'inapp' })
    const [card, del] = tm.pendingConfirmations()
    expect(card).toEqual({
      confirmId: r.confirmId,
      tool: 'create',
      title: 'Create challenge',
      summary: 'Create challenge "Robotics"',
      target: 'Robotics',
      destructive: false,
      caller: 'inapp',
      input: { name: 'Robotics' },
      changes: [],
      createdAt: 1_700_000_000_000,
      expiresAt: 1_700_000_000_000 + 600_000,
      callId: 'call-7',
    })
    expect(del).not.toHaveProperty('target') // `name` is not a string
    expect(del?.destructive).toBe(true)
  })

  it('approval runs the tool as human with the real input; rejection → cancelled operator, nothing runs', async () => {
    const callers: string[] = []
    const run = vi.fn((input: unknown, ctx: ToolContext) => {
      callers.push(ctx.caller)
      return ok(input)
    })
    const { tm } = withEvents()
    tm.register(createDef(run))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    const b = needs(await tm.call('create', { name: 'B' }, { caller: 'inapp' }))
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok({ name: 'A' }))
    expect(await tm.confirmPending(b.confirmId, { approved: false, reason: 'nope' })).toEqual(OPERATOR)
    expect(callers).toEqual(['human'])
    expect(tm.pendingConfirmations()).toEqual([])
  })

  it('a confirmId is single use for every terminal outcome; unknown ids are confirmation_expired', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    tm.register(createDef(run))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    const b = needs(await tm.call('create', { name: 'B' }, { caller: 'inapp' }))
    await tm.confirmPending(a.confirmId, { approved: true })
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(EXPIRED)
    expect(await tm.confirmPending(a.confirmId, { approved: false })).toEqual(EXPIRED)
    await tm.confirmPending(b.confirmId, { approved: false })
    expect(await tm.confirmPending(b.confirmId, { approved: true })).toEqual(EXPIRED)
    expect(await tm.confirmPending('no-such-id', { approved: true })).toEqual(EXPIRED)
    expect(await tm.confirmPending(undefined as never, { approved: true })).toEqual(EXPIRED)
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('two concurrent approvals (one with an edit) run the tool exactly once', async () => {
    const run = vi.fn((input: unknown) => ok(input))
    const tm = createTestToolmark()
    tm.register(createDef(run))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    const results = await Promise.all([
      tm.confirmPending(a.confirmId, { approved: true, input: { name: 'Edited' } }),
      tm.confirmPending(a.confirmId, { approved: true }),
      tm.confirmPending(a.confirmId, { approved: false }),
    ])
    expect(run).toHaveBeenCalledTimes(1)
    expect(results.filter((r) => r.status === 'ok')).toHaveLength(1)
    expect(results.filter((r) => r.status === 'refused')).toHaveLength(2)
  })

  it('an invalid approval does not consume the id; the tool outcome (even error) does', async () => {
    const run = vi.fn((): ToolResult => {
      throw new Error('boom')
    })
    const tm = createTestToolmark({ dev: false })
    tm.register(createDef(run as never))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    const bad = await tm.confirmPending(a.confirmId, { approved: true, input: { name: 42 } })
    expect(bad).toEqual({ status: 'invalid', issues: [{ path: 'name', message: expect.any(String) }] })
    expect(tm.pendingConfirmations()).toHaveLength(1)
    expect(run).not.toHaveBeenCalled()
    expect(await tm.confirmPending(a.confirmId, { approved: true, input: { name: 'Fixed' } })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(run).toHaveBeenCalledWith({ name: 'Fixed' }, expect.anything())
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(EXPIRED)
  })
})

describe('at most 100 pending; the oldest expires first', () => {
  it('exactly 100 are kept; the 101st expires the oldest, which is then refused', async () => {
    const run = vi.fn((input: unknown) => ok(input))
    const { tm, settled } = withEvents()
    tm.register(createDef(run))
    const ids: string[] = []
    for (let i = 0; i < 100; i++)
      ids.push(needs(await tm.call('create', { name: `n${i}` }, { caller: 'inapp' })).confirmId)
    expect(tm.pendingConfirmations()).toHaveLength(100)
    expect(settled).toEqual([])
    ids.push(needs(await tm.call('create', { name: 'n100' }, { caller: 'inapp' })).confirmId)
    expect(tm.pendingConfirmations()).toHaveLength(100)
    expect(tm.pendingConfirmations()[0]?.confirmId).toBe(ids[1])
    expect(settled).toEqual([
      expect.objectContaining({ confirmId: ids[0], outcome: 'expired', result: EXPIRED }),
    ])
    expect(await tm.confirmPending(ids[0]!, { approved: true })).toEqual(EXPIRED)
    expect(await tm.confirmPending(ids[1]!, { approved: true })).toEqual(ok({ name: 'n1' }))
    expect(await tm.confirmPending(ids[100]!, { approved: true })).toEqual(ok({ name: 'n100' }))
    expect(run).toHaveBeenCalledTimes(2)
  })
})

describe('scope disposal drops pending confirmations', () => {
  it('a disposed scope (or its parent) expires its confirmations; other scopes keep theirs', async () => {
    const { tm, settled } = withEvents()
    const parent = tm.scope('p')
    const child = parent.scope('c')
    child.register(createDef())
    tm.scope('other').register(createDef())
    const a = needs(await tm.call('p.c.create', { name: 'A' }, { caller: 'inapp' }))
    const b = needs(await tm.call('other.create', { name: 'B' }, { caller: 'inapp' }))
    parent.dispose()
    expect(tm.pendingConfirmations().map((c) => c.confirmId)).toEqual([b.confirmId])
    expect(settled).toEqual([expect.objectContaining({ confirmId: a.confirmId, outcome: 'expired' })])
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(EXPIRED)
    expect(await tm.confirmPending(b.confirmId, { approved: true })).toEqual(ok({ name: 'B' }))
  })

  it('an open inline request of a disposed scope is answered confirmation_expired and its prompt closes', async () => {
    const queue = createConfirmQueue()
    const run = vi.fn(() => ok())
    const tm = createTestToolmark({ confirm: queue.handler })
    const s = tm.scope('s')
    s.register(createDef(run))
    const p = tm.call('s.create', { name: 'A' }, { caller: 'webmcp' })
    await tick()
    const [req] = queue.getPending()
    s.dispose()
    expect(await p).toEqual(EXPIRED)
    expect(req?.signal.aborted).toBe(true)
    expect(run).not.toHaveBeenCalled()
  })
})
