import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { prodToolmark, tick } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { cancelled, ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'
import type {
  ConfirmRequest,
  PendingConfirmation,
  ToolContext,
  ToolmarkEvents,
  ToolResult,
} from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

const createTool = (run = vi.fn((input: { name: string }) => ok(input))) => ({
  name: 'create',
  description: 'Create a challenge',
  title: 'Create challenge',
  input: z.object({ name: z.string(), description: z.string().optional() }),
  hints: { consequential: true },
  summary: ({ name }: { name: string }) => `Create challenge "${name}"`,
  run,
})

const deferred = (status: ToolResult) => {
  if (status.status !== 'needs_confirmation')
    throw new Error(`expected needs_confirmation, got ${JSON.stringify(status)}`)
  return status
}

describe('deferred mode (inapp default)', () => {
  it('answers needs_confirmation at once, lists the card, and approval runs the tool as human', async () => {
    const tm = createTestToolmark()
    const run = vi.fn((input: { name: string }, ctx: ToolContext) => ok({ input, caller: ctx.caller }))
    tm.register(createTool(run as never))
    const r = deferred(await tm.call('create', { name: 'Robotics' }, { caller: 'inapp', callId: 'call-1' }))
    expect(r).toEqual({
      status: 'needs_confirmation',
      confirmId: expect.any(String),
      summary: 'Create challenge "Robotics"',
      changes: [],
    })
    expect(run).not.toHaveBeenCalled()
    const [card] = tm.pendingConfirmations()
    expect(card).toMatchObject<Partial<PendingConfirmation>>({
      confirmId: r.confirmId,
      tool: 'create',
      title: 'Create challenge',
      summary: 'Create challenge "Robotics"',
      target: 'Robotics',
      destructive: false,
      caller: 'inapp',
      callId: 'call-1',
      input: { name: 'Robotics' },
    })
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toEqual(
      ok({ input: { name: 'Robotics' }, caller: 'human' }),
    )
    expect(tm.pendingConfirmations()).toEqual([])
  })

  it('rejection → cancelled operator and the tool never runs', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    tm.register(createTool(run as never))
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    expect(await tm.confirmPending(r.confirmId, { approved: false })).toEqual(cancelled('operator'))
    expect(run).not.toHaveBeenCalled()
  })

  it('single use: a second confirmPending is refused confirmation_expired; unknown ids too', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    tm.register(createTool(run as never))
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    await tm.confirmPending(r.confirmId, { approved: true })
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'confirmation_expired',
      message: 'The confirmation expired or was already used',
    })
    expect(await tm.confirmPending('forged', { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('two concurrent approvals run the tool once', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    tm.register(createTool(run as never))
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    const [a, b] = await Promise.all([
      tm.confirmPending(r.confirmId, { approved: true, input: { name: 'Y' } }),
      tm.confirmPending(r.confirmId, { approved: true }),
    ])
    expect([a.status, b.status].sort()).toEqual(['ok', 'refused'])
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('edited input is re-validated; invalid does not consume the confirmId', async () => {
    const tm = createTestToolmark()
    const run = vi.fn((i: { name: string }) => ok(i.name))
    tm.register(createTool(run as never))
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    const bad = await tm.confirmPending(r.confirmId, { approved: true, input: { name: 5 } })
    expect(bad).toMatchObject({ status: 'invalid', issues: [{ path: 'name' }] })
    expect(tm.pendingConfirmations()).toHaveLength(1)
    expect(await tm.confirmPending(r.confirmId, { approved: true, input: { name: 'Edited' } })).toEqual(
      ok('Edited'),
    )
  })

  it('expires by timer with no user action and emits the settled event', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ confirmExpiryMs: 1000 })
    const settled: ToolmarkEvents['confirm'][] = []
    tm.events.on('confirm', (e) => settled.push(e))
    tm.register(createTool())
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    await vi.advanceTimersByTimeAsync(1000)
    expect(tm.pendingConfirmations()).toEqual([])
    expect(settled.at(-1)).toMatchObject({
      phase: 'settled',
      confirmId: r.confirmId,
      outcome: 'expired',
      result: { code: 'confirmation_expired' },
    })
  })

  it('checks expiry against the clock at approval time even if no timer fired', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ confirmExpiryMs: 1000 })
    const run = vi.fn(() => ok())
    tm.register(createTool(run as never))
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    vi.setSystemTime(Date.now() + 1000) // moves the wall clock, fires nothing
    expect(tm.pendingConfirmations()).toHaveLength(1)
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
    expect(run).not.toHaveBeenCalled()
  })

  it('expires by monotonic time even when the wall clock goes back', async () => {
    const tm = createTestToolmark({ confirmExpiryMs: 1000 })
    const run = vi.fn(() => ok())
    tm.register(createTool(run as never))
    let mono = performance.now()
    const spy = vi.spyOn(performance, 'now').mockImplementation(() => mono)
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    mono += 1001 // (a + 1000) - a can round below 1000 in floating point
    const wall = vi.spyOn(Date, 'now').mockReturnValue(0)
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
    spy.mockRestore()
    wall.mockRestore()
    expect(run).not.toHaveBeenCalled()
  })

  it('the 101st pending confirmation expires the oldest', async () => {
    const tm = createTestToolmark()
    tm.register(createTool())
    const settled: string[] = []
    tm.events.on('confirm', (e) => e.phase === 'settled' && settled.push(e.confirmId))
    const ids: string[] = []
    for (let i = 0; i < 101; i++)
      ids.push(deferred(await tm.call('create', { name: `n${i}` }, { caller: 'inapp' })).confirmId)
    expect(tm.pendingConfirmations()).toHaveLength(100)
    expect(settled).toEqual([ids[0]])
    expect(await tm.confirmPending(ids[0]!, { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
    expect((await tm.confirmPending(ids[1]!, { approved: true })).status).toBe('ok')
  })

  it('is dropped when its scope is disposed; approval after that is expired', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    const scope = tm.scope('page')
    scope.register(createTool(run as never))
    const r = deferred(await tm.call('page.create', { name: 'X' }, { caller: 'inapp' }))
    scope.dispose()
    expect(tm.pendingConfirmations()).toEqual([])
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
    expect(run).not.toHaveBeenCalled()
  })

  it('an approval racing a scope disposal never runs the tool', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    const scope = tm.scope('page')
    scope.register(createTool(run as never))
    const r = deferred(await tm.call('page.create', { name: 'X' }, { caller: 'inapp' }))
    const approval = tm.confirmPending(r.confirmId, { approved: true, input: { name: 'Edited' } })
    scope.dispose() // while the edited input is being validated
    expect(await approval).toMatchObject({ status: 'refused', code: 'confirmation_expired' })
    expect(run).not.toHaveBeenCalled()
  })

  it('is bound to the registration: after a swap neither handler runs', async () => {
    const tm = createTestToolmark()
    const oldRun = vi.fn(() => ok('old'))
    const newRun = vi.fn(() => ok('new'))
    const h = tm.register(createTool(oldRun as never))
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    h.dispose()
    tm.register({ ...createTool(newRun as never), hints: { destructive: true } })
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(oldRun).not.toHaveBeenCalled()
    expect(newRun).not.toHaveBeenCalled()
  })

  it('unrelated registry changes do not expire a pending confirmation', async () => {
    const tm = createTestToolmark()
    tm.register(createTool())
    const r = deferred(await tm.call('create', { name: 'X' }, { caller: 'inapp' }))
    tm.register({ name: 'other', description: 'd', hints: { readOnly: true }, run: () => ok() }).dispose()
    expect((await tm.confirmPending(r.confirmId, { approved: true })).status).toBe('ok')
  })

  it('a form submit approved after the form changed is refused stale', async () => {
    const tm = createTestToolmark()
    const form = { email: 'a@b.c' }
    const run = vi.fn(() => ok())
    tm.register({
      name: 'signup.submit',
      description: 'd',
      hints: { consequential: true },
      snapshot: () => ({ ...form }),
      run,
    })
    const r = deferred(await tm.call('signup.submit', {}, { caller: 'inapp' }))
    form.email = 'changed@b.c'
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    expect(run).not.toHaveBeenCalled()
  })

  it('destructive tools are flagged for the card', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'del',
      description: 'd',
      hints: { destructive: true },
      input: z.object({ name: z.string() }),
      run: () => ok(),
    })
    await tm.call('del', { name: 'Robotics' }, { caller: 'inapp' })
    expect(tm.pendingConfirmations()[0]).toMatchObject({
      destructive: true,
      target: 'Robotics',
      summary: 'del',
    })
  })

  it('a tool that declares undoable says so on its card (deferred and inline); others do not', async () => {
    const requests: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (request) => {
        requests.push(request)
        return { approved: false }
      },
    })
    const input = z.object({ name: z.string() })
    tm.register({
      name: 'del',
      description: 'd',
      hints: { destructive: true },
      undoable: true,
      input,
      run: () => ok(),
    })
    tm.register({ name: 'wipe', description: 'd', hints: { destructive: true }, input, run: () => ok() })
    await tm.call('del', { name: 'A' }, { caller: 'inapp' })
    await tm.call('wipe', { name: 'B' }, { caller: 'inapp' })
    await tm.call('del', { name: 'C' }, { caller: 'webmcp' })
    const [del, wipe] = tm.pendingConfirmations()
    expect(del).toMatchObject({ tool: 'del', undoable: true })
    expect(wipe?.tool).toBe('wipe')
    expect(wipe).not.toHaveProperty('undoable')
    expect(requests).toEqual([expect.objectContaining({ tool: 'del', undoable: true })])
  })
})

describe('redaction in confirmations', () => {
  const cardTool = (run = vi.fn((i: unknown) => ok(i))) => ({
    name: 'updateCard',
    description: 'd',
    hints: { consequential: true },
    sensitivePaths: ['card.number', 'card.cvc'],
    input: z.object({ card: z.object({ number: z.string(), cvc: z.string(), expiry: z.string() }) }),
    run,
  })

  it('pending input is redacted and the approved run gets the real input', async () => {
    const tm = createTestToolmark()
    const run = vi.fn((i: unknown) => ok(i))
    tm.register(cardTool(run))
    const input = { card: { number: '4242424242424242', cvc: '123', expiry: '12/30' } }
    const r = deferred(await tm.call('updateCard', input, { caller: 'inapp' }))
    const card = tm.pendingConfirmations()[0]!
    expect(card.input).toEqual({ card: { number: '[redacted]', cvc: '[redacted]', expiry: '12/30' } })
    expect(JSON.stringify(tm.pendingConfirmations().map((c) => [c.input, c.changes]))).not.toMatch(/4242|123/)
    // Approving with the public (redacted) input plus an edit restores the secrets.
    const edited = { card: { ...(card.input as { card: object }).card, expiry: '01/31' } }
    expect(await tm.confirmPending(r.confirmId, { approved: true, input: edited })).toEqual(
      ok({ card: { number: '4242424242424242', cvc: '123', expiry: '01/31' } }),
    )
  })

  it('a placeholder outside the sensitive paths is "Re-enter sensitive field"', async () => {
    const tm = createTestToolmark()
    tm.register(cardTool())
    const r = deferred(
      await tm.call(
        'updateCard',
        { card: { number: '4242', cvc: '123', expiry: '12/30' } },
        { caller: 'inapp' },
      ),
    )
    const res = await tm.confirmPending(r.confirmId, {
      approved: true,
      input: { card: { number: '[redacted]', cvc: '[redacted]', expiry: '[redacted]' } },
    })
    expect(res).toEqual({
      status: 'invalid',
      issues: [{ path: 'card.expiry', message: 'Re-enter sensitive field' }],
    })
  })

  it('inline requests are redacted too', async () => {
    const requests: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (req) => {
        requests.push(req)
        return { approved: true }
      },
    })
    tm.register(cardTool())
    await tm.call(
      'updateCard',
      { card: { number: '4242', cvc: '123', expiry: '12/30' } },
      { caller: 'webmcp' },
    )
    expect(requests[0]?.input).toEqual({ card: { number: '[redacted]', cvc: '[redacted]', expiry: '12/30' } })
  })
})

describe('inline mode (webmcp, mcp, tour)', () => {
  it('the call stays open until the queue approves; kind, card data and signal are set', async () => {
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler })
    const run = vi.fn((i: { name: string }) => ok(i.name))
    tm.register(createTool(run as never))
    const p = tm.call('create', { name: 'Robotics' }, { caller: 'webmcp' })
    await tick()
    expect(run).not.toHaveBeenCalled()
    const [req] = queue.getPending()
    expect(req).toMatchObject({
      kind: 'call',
      tool: 'create',
      target: 'Robotics',
      caller: 'webmcp',
      destructive: false,
    })
    expect(queue.approve(req!.confirmId)).toBe(true)
    expect(await p).toEqual(ok('Robotics'))
    expect(req!.signal.aborted).toBe(true)
    expect(queue.getPending()).toEqual([])
  })

  it('rejection → cancelled operator; the handler answer after expiry → confirmation_expired', async () => {
    vi.useFakeTimers()
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler, confirmExpiryMs: 1000 })
    const run = vi.fn(() => ok())
    tm.register(createTool(run as never))
    const p1 = tm.call('create', { name: 'A' }, { caller: 'mcp' })
    await vi.advanceTimersByTimeAsync(0)
    queue.reject(queue.getPending()[0]!.confirmId)
    expect(await p1).toEqual(cancelled('operator'))

    let answer: (v: { approved: true }) => void = () => {}
    const slowTm = createTestToolmark({
      confirm: () =>
        new Promise((r) => {
          answer = r
        }),
      confirmExpiryMs: 1000,
    })
    slowTm.register(createTool(run as never))
    const p2 = slowTm.call('create', { name: 'B' }, { caller: 'tour' })
    await vi.advanceTimersByTimeAsync(0)
    vi.setSystemTime(Date.now() + 5000)
    answer({ approved: true })
    expect(await p2).toMatchObject({ code: 'confirmation_expired' })
    expect(run).not.toHaveBeenCalled()
  })

  it('bounded by the call signal', async () => {
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler })
    tm.register(createTool())
    const ac = new AbortController()
    const p = tm.call('create', { name: 'A' }, { caller: 'webmcp', signal: ac.signal })
    await tick()
    ac.abort()
    expect(await p).toEqual(cancelled('signal'))
    expect(queue.getPending()).toEqual([])
  })

  it('a tool swapped while the prompt is open is refused stale and nothing runs', async () => {
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler })
    const oldRun = vi.fn(() => ok())
    const newRun = vi.fn(() => ok())
    const h = tm.register(createTool(oldRun as never))
    const p = tm.call('create', { name: 'A' }, { caller: 'webmcp' })
    await tick()
    h.dispose()
    tm.register(createTool(newRun as never))
    queue.approve(queue.getPending()[0]!.confirmId)
    expect(await p).toMatchObject({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(oldRun).not.toHaveBeenCalled()
    expect(newRun).not.toHaveBeenCalled()
  })

  it('confirmMode is configurable only for inapp and test', () => {
    expect(() => createTestToolmark({ confirmMode: { webmcp: 'deferred' } })).toThrowError(
      expect.objectContaining({ code: 'invalid_confirm_mode' }),
    )
    expect(() => createTestToolmark({ confirmMode: { inapp: 'later' as never } })).toThrowError(
      expect.objectContaining({ code: 'invalid_confirm_mode' }),
    )
    expect(() => createTestToolmark({ confirmMode: { inapp: 'inline', test: 'deferred' } })).not.toThrow()
  })

  it('inapp can be switched to inline', async () => {
    const tm = createTestToolmark({ confirmMode: { inapp: 'inline' } })
    tm.register(createTool())
    expect(await tm.call('create', { name: 'A' }, { caller: 'inapp' })).toEqual(ok({ name: 'A' }))
  })
})

describe('registration check and confirmation paths', () => {
  it('missing_confirm_handler when no allowed non-human caller has a path', () => {
    environment.setIsServer(false)
    const tm = createToolmark({ dev: true, policy: { inapp: ['readOnly'] } })
    expect(() => tm.register(createTool())).toThrowError(
      expect.objectContaining({ code: 'missing_confirm_handler' }),
    )
  })

  it('an inline caller without a handler does not see such tools (not_allowed) and dev warns', async () => {
    environment.setIsServer(false)
    const tm = createToolmark({ dev: true })
    const warnings: string[] = []
    tm.events.on('error', (e) => e.level === 'warning' && warnings.push(e.code))
    tm.register(createTool())
    expect(warnings).toContain('missing_confirm_handler')
    expect(tm.manifest({ caller: 'webmcp' }).tools).toEqual([])
    expect(tm.manifest({ caller: 'inapp' }).tools).toHaveLength(1)
    expect(await tm.call('create', { name: 'A' }, { caller: 'webmcp' })).toMatchObject({
      code: 'not_allowed',
    })
  })

  it('human callers never need confirmation', async () => {
    const tm = createTestToolmark()
    tm.register(createTool())
    expect(await tm.call('create', { name: 'A' }, { caller: 'human' })).toEqual(ok({ name: 'A' }))
  })
})

describe('requiresConfirmation and confirmUnannotated', () => {
  it('requiresConfirmation can add a confirmation but never skip one', async () => {
    const tm = createTestToolmark({
      requiresConfirmation: (_tool, call) => Number((call.input as { amount?: number }).amount) > 1000,
    })
    tm.register({
      name: 'pay',
      description: 'd',
      hints: { readOnly: true },
      input: z.object({ amount: z.number() }),
      run: () => ok(),
    })
    tm.register(createTool())
    expect((await tm.call('pay', { amount: 5 }, { caller: 'inapp' })).status).toBe('ok')
    expect((await tm.call('pay', { amount: 5000 }, { caller: 'inapp' })).status).toBe('needs_confirmation')
    const never = createTestToolmark({ requiresConfirmation: () => false })
    never.register(createTool())
    expect((await never.call('create', { name: 'A' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('confirmUnannotated treats tools without hints as consequential', async () => {
    const tm = createTestToolmark({ confirmUnannotated: true })
    tm.register({ name: 'getUser', description: 'd', run: () => ok() })
    expect((await tm.call('getUser', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
    const plain = createTestToolmark()
    plain.register({ name: 'getUser', description: 'd', run: () => ok() })
    expect((await plain.call('getUser', {}, { caller: 'inapp' })).status).toBe('ok')
  })
})

describe('ctx.confirm', () => {
  const midRun = () => ({
    name: 'mid',
    description: 'd',
    hints: { readOnly: true },
    run: async (_: unknown, ctx: ToolContext) =>
      ok(await ctx.confirm({ summary: 'Really?', changes: [{ path: 'x', after: 1 }] })),
  })

  it('human → approved; inline caller → the handler; deferred caller → confirmation_unavailable + dev event', async () => {
    const requests: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (r) => {
        requests.push(r)
        return { approved: true }
      },
    })
    const events: string[] = []
    tm.events.on('error', (e) => events.push(e.code))
    tm.register(midRun())
    expect(await tm.call('mid', {}, { caller: 'human' })).toEqual(ok({ approved: true }))
    expect(await tm.call('mid', {}, { caller: 'webmcp' })).toEqual(ok({ approved: true }))
    expect(requests[0]).toMatchObject({ kind: 'ctx', summary: 'Really?', changes: [{ path: 'x', after: 1 }] })
    expect(await tm.call('mid', {}, { caller: 'inapp' })).toEqual(
      ok({ approved: false, reason: 'confirmation_unavailable' }),
    )
    expect(events).toContain('ctx_confirm_unavailable')
  })

  it('pauses the call deadline while the confirmation is open', async () => {
    vi.useFakeTimers()
    let answer: (v: { approved: true }) => void = () => {}
    const tm = createTestToolmark({
      callTimeoutMs: 1000,
      confirm: () =>
        new Promise((r) => {
          answer = r
        }),
    })
    tm.register(midRun())
    const p = tm.call('mid', {}, { caller: 'mcp' })
    await vi.advanceTimersByTimeAsync(5000)
    answer({ approved: true })
    expect(await p).toEqual(ok({ approved: true }))
  })

  it('redacts sensitive changes and never throws', async () => {
    const seen: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (r) => {
        seen.push(r)
        throw new Error('handler bug')
      },
    })
    tm.register({
      name: 'pay',
      description: 'd',
      hints: { readOnly: true },
      sensitivePaths: ['cards[].cvc'],
      run: async (_: unknown, ctx: ToolContext) =>
        ok(
          await ctx.confirm({
            summary: 's',
            changes: [
              { path: 'cards.0.cvc', after: '999' },
              { path: 'cards', after: [{ cvc: '111', n: 1 }] },
            ],
          }),
        ),
    })
    const r = await tm.call('pay', {}, { caller: 'webmcp' })
    expect(r).toEqual(ok({ approved: false, reason: 'cancelled' }))
    expect(seen[0]?.changes).toEqual([
      { path: 'cards.0.cvc', after: '[redacted]' },
      { path: 'cards', after: [{ cvc: '[redacted]', n: 1 }] },
    ])
  })
})

describe('createTestToolmark', () => {
  it('keeps production modes (inapp deferred) with a default-approve inline handler', async () => {
    const tm = createTestToolmark()
    tm.register(createTool())
    expect((await tm.call('create', { name: 'A' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
    expect((await tm.call('create', { name: 'A' }, { caller: 'test' })).status).toBe('ok')
    expect((await tm.call('create', { name: 'A' }, { caller: 'webmcp' })).status).toBe('ok')
  })

  it('works in production mode too (errors as events)', async () => {
    const { tm } = prodToolmark()
    tm.register(createTool())
    expect((await tm.call('create', { name: 'A' }, { caller: 'tour' })).status).toBe('ok')
  })
})
