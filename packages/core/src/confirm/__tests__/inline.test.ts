/**
 * Inline confirmations (always for webmcp, mcp and tour): the `confirm` handler's answers and
 * failures.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDef, EXPIRED, OPERATOR, tick } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('inline mode (always for webmcp, mcp, tour)', () => {
  it.each(['webmcp', 'mcp', 'tour'] as const)(
    '%s never sees needs_confirmation: the call waits for the handler; reject → cancelled operator',
    async (caller) => {
      const queue = createConfirmQueue()
      const run = vi.fn((input: unknown) => ok(input))
      const tm = createTestToolmark({ confirm: queue.handler })
      tm.register(createDef(run))
      const approved = tm.call('create', { name: 'Yes' }, { caller })
      const rejected = tm.call('create', { name: 'No' }, { caller })
      await tick()
      const [yes, no] = queue.getPending()
      expect(yes).toMatchObject({
        kind: 'call',
        tool: 'create',
        title: 'Create challenge',
        summary: 'Create challenge "Yes"',
        target: 'Yes',
        destructive: false,
        caller,
        input: { name: 'Yes' },
        changes: [],
        expiresAt: expect.any(Number),
      })
      expect(queue.approve(yes!.confirmId)).toBe(true)
      expect(queue.reject(no!.confirmId)).toBe(true)
      expect(await approved).toEqual(ok({ name: 'Yes' }))
      expect(await rejected).toEqual(OPERATOR)
      expect(run).toHaveBeenCalledTimes(1)
      expect(queue.approve(yes!.confirmId)).toBe(false)
      expect(tm.pendingConfirmations()).toEqual([])
      expect(await tm.confirmPending(yes!.confirmId, { approved: true })).toEqual(EXPIRED)
    },
  )

  it('an inline approval with an invalid edit asks again with the issues; a fixed edit runs once', async () => {
    const queue = createConfirmQueue()
    const run = vi.fn((input: unknown) => ok(input))
    const tm = createTestToolmark({ confirm: queue.handler })
    tm.register(createDef(run))
    const good = tm.call('create', { name: 'A' }, { caller: 'webmcp' })
    const bad = tm.call('create', { name: 'B' }, { caller: 'webmcp' })
    await tick()
    const [g, b] = queue.getPending()
    queue.approve(g!.confirmId, { name: 'A2' })
    queue.approve(b!.confirmId, { name: 7 })
    expect(await good).toEqual(ok({ name: 'A2' }))
    await tick()
    const [again] = queue.getPending()
    expect(again).toMatchObject({
      confirmId: b!.confirmId,
      issues: [{ path: 'name', message: expect.any(String) }],
    })
    expect(run).toHaveBeenCalledTimes(1)
    queue.approve(b!.confirmId, { name: 'B2' })
    expect(await bad).toEqual(ok({ name: 'B2' }))
    expect(run).toHaveBeenCalledTimes(2)
  })

  it('the caller signal ends an open inline request (cancelled signal) and closes the prompt', async () => {
    const queue = createConfirmQueue()
    const run = vi.fn(() => ok())
    const tm = createTestToolmark({ confirm: queue.handler })
    tm.register(createDef(run))
    const ac = new AbortController()
    const p = tm.call('create', { name: 'A' }, { caller: 'webmcp', signal: ac.signal })
    await tick()
    const [req] = queue.getPending()
    ac.abort()
    expect(await p).toEqual({ status: 'cancelled', by: 'signal' })
    expect(req?.signal.aborted).toBe(true)
    expect(queue.getPending()).toEqual([])
    expect(run).not.toHaveBeenCalled()
  })

  it('confirmMode can switch inapp to inline and test to deferred; nothing else is configurable', async () => {
    const queue = createConfirmQueue()
    const tm = createTestToolmark({
      confirm: queue.handler,
      confirmMode: { inapp: 'inline', test: 'deferred' },
    })
    tm.register(createDef())
    expect((await tm.call('create', { name: 'T' }, { caller: 'test' })).status).toBe('needs_confirmation')
    const p = tm.call('create', { name: 'I' }, { caller: 'inapp' })
    await tick()
    expect(queue.getPending()).toHaveLength(1)
    queue.approve(queue.getPending()[0]!.confirmId)
    expect(await p).toEqual(ok({ name: 'I' }))
  })
})
