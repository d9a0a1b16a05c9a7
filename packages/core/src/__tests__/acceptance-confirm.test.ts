/**
 * Acceptance tests for confirmations (docs/guides/confirmations.md: modes and rules): exact outcomes, expiry boundaries, the 100 cap, redaction and ctx.confirm per caller.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { ok } from '../call/result.ts'
import { createConfirmQueue } from '../confirm/queue.ts'
import { environment } from '../env.ts'
import { approveAll, createTestToolmark, rejectAll } from '../testing/index.ts'
import { createToolmark } from '../toolmark.ts'
import type {
  ConfirmRequest,
  CtxConfirmOutcome,
  FieldChange,
  NeedsConfirmationResult,
  ToolContext,
  ToolDefinition,
  Toolmark,
  ToolmarkErrorEvent,
  ToolmarkEvents,
  ToolmarkOptions,
  ToolResult,
} from '../types.ts'
import { tick } from './helpers.ts'

const EXPIRED = {
  status: 'refused',
  code: 'confirmation_expired',
  message: 'The confirmation expired or was already used',
}
const OPERATOR = { status: 'cancelled', by: 'operator' }

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

function needs(result: ToolResult): NeedsConfirmationResult {
  if (result.status !== 'needs_confirmation')
    throw new Error(`expected needs_confirmation: ${JSON.stringify(result)}`)
  return result
}

const createDef = (run = vi.fn((input: unknown, _ctx: ToolContext) => ok(input))): ToolDefinition =>
  ({
    name: 'create',
    description: 'Create a challenge',
    title: 'Create challenge',
    input: z.object({ name: z.string() }),
    hints: { consequential: true },
    summary: ({ name }: { name: string }) => `Create challenge "${name}"`,
    run,
  }) as unknown as ToolDefinition

function withEvents(options: ToolmarkOptions = {}): {
  tm: Toolmark
  errors: ToolmarkErrorEvent[]
  settled: Extract<ToolmarkEvents['confirm'], { phase: 'settled' }>[]
} {
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  const settled: Extract<ToolmarkEvents['confirm'], { phase: 'settled' }>[] = []
  tm.events.on('error', (e) => errors.push(e))
  tm.events.on('confirm', (e) => {
    if (e.phase === 'settled') settled.push(e)
  })
  return { tm, errors, settled }
}

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

describe('expiry: checked against the clock at approval time (expired when now >= expiresAt)', () => {
  it('deferred: 1 ms before expiresAt runs; exactly at expiresAt is expired and nothing runs (no timer fired)', async () => {
    vi.useFakeTimers()
    vi.setSystemTime(5_000_000)
    const run = vi.fn(() => ok('ran'))
    const { tm, settled } = withEvents()
    tm.register(createDef(run))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    const b = needs(await tm.call('create', { name: 'B' }, { caller: 'inapp' }))
    const expiresAt = tm.pendingConfirmations()[0]!.expiresAt
    expect(expiresAt).toBe(5_000_000 + 600_000)
    vi.setSystemTime(expiresAt - 1)
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok('ran'))
    vi.setSystemTime(expiresAt)
    expect(await tm.confirmPending(b.confirmId, { approved: true })).toEqual(EXPIRED)
    expect(run).toHaveBeenCalledTimes(1)
    expect(settled.map((s) => s.outcome)).toEqual(['approved', 'expired'])
    expect(settled[1]?.result).toEqual(EXPIRED)
  })

  it('deferred: a rejection after expiry is expired too, and the confirmation is gone', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark()
    tm.register(createDef())
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    vi.setSystemTime(Date.now() + 600_000)
    expect(await tm.confirmPending(a.confirmId, { approved: false })).toEqual(EXPIRED)
    expect(tm.pendingConfirmations()).toEqual([])
  })

  it('inline: a handler answer exactly at expiresAt is confirmation_expired and the tool never runs', async () => {
    vi.useFakeTimers()
    vi.setSystemTime(9_000_000)
    const queue = createConfirmQueue()
    const run = vi.fn(() => ok('ran'))
    const tm = createTestToolmark({ confirm: queue.handler, confirmExpiryMs: 60_000 })
    tm.register(createDef(run))
    const late = tm.call('create', { name: 'L' }, { caller: 'webmcp' })
    const early = tm.call('create', { name: 'E' }, { caller: 'mcp' })
    await vi.advanceTimersByTimeAsync(0)
    const [lateReq, earlyReq] = queue.getPending()
    expect(lateReq?.expiresAt).toBe(9_000_000 + 60_000)
    vi.setSystemTime(9_060_000 - 1)
    queue.approve(earlyReq!.confirmId)
    expect(await early).toEqual(ok('ran'))
    vi.setSystemTime(9_060_000)
    queue.approve(lateReq!.confirmId)
    expect(await late).toEqual(EXPIRED)
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('a deferred confirmation nobody answers expires by timer (settled event, removed from the list)', async () => {
    vi.useFakeTimers()
    const { tm, settled } = withEvents({ confirmExpiryMs: 1_000 })
    tm.register(createDef())
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    await vi.advanceTimersByTimeAsync(999)
    expect(tm.pendingConfirmations()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(tm.pendingConfirmations()).toEqual([])
    expect(settled).toEqual([
      expect.objectContaining({ confirmId: a.confirmId, outcome: 'expired', result: EXPIRED }),
    ])
  })

  it('an inline request nobody answers expires: the call answers confirmation_expired and request.signal aborts', async () => {
    vi.useFakeTimers()
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler, confirmExpiryMs: 1_000 })
    tm.register(createDef())
    const p = tm.call('create', { name: 'A' }, { caller: 'tour' })
    await vi.advanceTimersByTimeAsync(0)
    const [req] = queue.getPending()
    expect(req?.signal.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(await p).toEqual(EXPIRED)
    expect(req?.signal.aborted).toBe(true)
    expect(queue.getPending()).toEqual([])
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

describe('bound to the registration, not the name', () => {
  it('deferred: approval after the registration is gone → stale "Tool changed since confirmation was requested"; neither handler runs; consumed', async () => {
    const oldRun = vi.fn(() => ok('old'))
    const newRun = vi.fn(() => ok('new'))
    const { tm, settled } = withEvents()
    const h = tm.register(createDef(oldRun))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    h.dispose()
    tm.register(createDef(newRun))
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(oldRun).not.toHaveBeenCalled()
    expect(newRun).not.toHaveBeenCalled()
    expect(settled.at(-1)).toMatchObject({ confirmId: a.confirmId, outcome: 'stale' })
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(EXPIRED)
  })

  it('deferred: approval after the tool was disposed with nothing re-registered is stale as well', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    const h = tm.register(createDef(run))
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    h.dispose()
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toMatchObject({
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(run).not.toHaveBeenCalled()
  })

  it('unrelated registry changes (other tools, other scopes) do not expire a pending confirmation', async () => {
    const tm = createTestToolmark()
    tm.register(createDef())
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    for (let i = 0; i < 5; i++)
      tm.register({ name: `t${i}`, description: 'd', hints: { readOnly: true }, run: () => ok() }).dispose()
    tm.scope('x').dispose()
    await tick()
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok({ name: 'A' }))
  })

  it('inline: approval after the registration was swapped → stale; neither handler runs', async () => {
    const queue = createConfirmQueue()
    const oldRun = vi.fn(() => ok('old'))
    const newRun = vi.fn(() => ok('new'))
    const tm = createTestToolmark({ confirm: queue.handler })
    const h = tm.register(createDef(oldRun))
    const p = tm.call('create', { name: 'A' }, { caller: 'mcp' })
    await tick()
    h.dispose()
    tm.register(createDef(newRun))
    queue.approve(queue.getPending()[0]!.confirmId)
    expect(await p).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(oldRun).not.toHaveBeenCalled()
    expect(newRun).not.toHaveBeenCalled()
  })

  it('a form submit approved after its snapshot changed → stale "Form changed since confirmation was requested"', async () => {
    const values = { email: 'a@b.c' }
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    tm.register({
      name: 'signup.submit',
      description: 'Submit',
      hints: { consequential: true },
      snapshot: () => ({ ...values }),
      run,
    })
    const a = needs(await tm.call('signup.submit', {}, { caller: 'inapp' }))
    const b = needs(await tm.call('signup.submit', {}, { caller: 'inapp' }))
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok())
    values.email = 'x@y.z'
    expect(await tm.confirmPending(b.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    expect(run).toHaveBeenCalledTimes(1)
  })
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

describe('registration check and confirmation paths', () => {
  it('missing_confirm_handler only when no allowed non-human caller has a path', () => {
    environment.setIsServer(false)
    const def = createDef()
    // inapp deferred is a path: fine without a handler.
    expect(() => createToolmark({ dev: true }).register(def)).not.toThrow()
    // Only inline callers allowed and no handler: no path.
    expect(() => createToolmark({ dev: true, policy: { inapp: ['readOnly'] } }).register(def)).toThrowError(
      expect.objectContaining({ code: 'missing_confirm_handler' }),
    )
    expect(() => createToolmark({ dev: true, confirmMode: { inapp: 'inline' } }).register(def)).toThrowError(
      expect.objectContaining({ code: 'missing_confirm_handler' }),
    )
    // A handler gives the inline callers a path.
    expect(() =>
      createToolmark({ dev: true, policy: { inapp: ['readOnly'] }, confirm: approveAll }).register(def),
    ).not.toThrow()
    // No allowed caller at all for consequential tools except human: nothing to confirm for, no path.
    expect(() =>
      createToolmark({
        dev: true,
        policy: { inapp: [], webmcp: [], mcp: [], tour: [], test: [] },
      }).register(def),
    ).toThrowError(expect.objectContaining({ code: 'missing_confirm_handler' }))
  })

  it('in production the failed registration is an error event and the tool is not registered', async () => {
    environment.setIsServer(false)
    const tm = createToolmark({ policy: { inapp: ['readOnly'] } })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    tm.register(createDef())
    expect(errors.map((e) => [e.code, e.level, e.tool])).toEqual([
      ['missing_confirm_handler', 'error', 'create'],
    ])
    expect(await tm.call('create', { name: 'A' }, { caller: 'human' })).toMatchObject({
      code: 'unknown_tool',
    })
  })

  it('an inline caller without a handler does not see consequential/destructive tools and is refused not_allowed', async () => {
    environment.setIsServer(false)
    const run = vi.fn(() => ok())
    const tm = createToolmark()
    tm.register(createDef(run))
    tm.register({ name: 'del', description: 'd', hints: { destructive: true }, run })
    for (const caller of ['webmcp', 'mcp', 'tour', 'test'] as const) {
      expect(tm.manifest({ caller }).tools).toEqual([])
      expect(tm.describe('create', { caller })).toBeUndefined()
      expect(await tm.call('del', {}, { caller })).toEqual({
        status: 'refused',
        code: 'not_allowed',
        message: expect.any(String),
      })
    }
    expect(tm.manifest({ caller: 'inapp' }).tools.map((t) => t.name)).toEqual(['create', 'del'])
    expect(run).not.toHaveBeenCalled()
  })
})

describe('requiresConfirmation and confirmUnannotated', () => {
  it('requiresConfirmation(tool, call, caller) adds confirmations per caller; false never skips one', async () => {
    const rule = vi.fn(
      (tool: { name: string }, _call: { input: unknown }, caller: string) =>
        tool.name === 'transfer' && caller === 'mcp',
    )
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler, requiresConfirmation: rule })
    tm.register({ name: 'transfer', description: 'd', hints: { readOnly: true }, run: () => ok('moved') })
    expect(await tm.call('transfer', {}, { caller: 'inapp' })).toEqual(ok('moved'))
    const p = tm.call('transfer', {}, { caller: 'mcp' })
    await tick()
    expect(queue.getPending()).toHaveLength(1)
    queue.reject(queue.getPending()[0]!.confirmId)
    expect(await p).toEqual(OPERATOR)
    expect(rule).toHaveBeenCalledWith(expect.objectContaining({ name: 'transfer' }), { input: {} }, 'mcp')
    const never = createTestToolmark({ requiresConfirmation: () => false })
    never.register({ name: 'del', description: 'd', hints: { destructive: true }, run: () => ok() })
    expect((await never.call('del', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('requiresConfirmation never applies to human callers', async () => {
    const tm = createTestToolmark({ requiresConfirmation: () => true })
    tm.register({ name: 'x', description: 'd', hints: { readOnly: true }, run: () => ok('ran') })
    expect(await tm.call('x', {}, { caller: 'human' })).toEqual(ok('ran'))
  })

  it('confirmUnannotated: a tool with none of readOnly/consequential/destructive asks; untrustedContent alone is unannotated', async () => {
    const tm = createTestToolmark({ confirmUnannotated: true })
    tm.register({ name: 'getUser', description: 'd', run: () => ok() })
    tm.register({ name: 'notes', description: 'd', hints: { untrustedContent: true }, run: () => ok() })
    tm.register({ name: 'read', description: 'd', hints: { readOnly: true }, run: () => ok() })
    expect((await tm.call('getUser', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
    expect((await tm.call('notes', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
    expect((await tm.call('read', {}, { caller: 'inapp' })).status).toBe('ok')
  })
})

describe('redaction (sensitive values stay out of confirmation payloads)', () => {
  const payInput = {
    name: 'Order 1',
    password: 'hunter2',
    cards: [
      { last4: '1111', cvc: '123' },
      { last4: '2222', cvc: '456' },
    ],
  }
  const payDef = (
    run = vi.fn((input: unknown) => ok(input)),
    sensitivePaths: ToolDefinition['sensitivePaths'] = ['password', 'cards[].cvc'],
  ): ToolDefinition => ({
    name: 'pay',
    description: 'Pay',
    hints: { consequential: true },
    sensitivePaths,
    run,
  })
  const publicInput = {
    name: 'Order 1',
    password: '[redacted]',
    cards: [
      { last4: '1111', cvc: '[redacted]' },
      { last4: '2222', cvc: '[redacted]' },
    ],
  }

  it('PendingConfirmation.input and ConfirmRequest.input are redacted; the approved run gets the real input', async () => {
    const run = vi.fn((input: unknown) => ok(input))
    const seen: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (r) => {
        seen.push(r)
        return { approved: true }
      },
    })
    tm.register(payDef(run))
    const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    expect(tm.pendingConfirmations()[0]?.input).toEqual(publicInput)
    expect(JSON.stringify(tm.pendingConfirmations().map((c) => [c.input, c.changes]))).not.toMatch(
      /hunter2|123|456/,
    ) // ids and timestamps may contain digits
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok(payInput))
    expect(await tm.call('pay', payInput, { caller: 'webmcp' })).toEqual(ok(payInput))
    expect(seen[0]?.input).toEqual(publicInput)
    expect(JSON.stringify([seen[0]?.input, seen[0]?.changes])).not.toMatch(/hunter2|123|456/)
  })

  it('an edit of the public input restores every untouched placeholder; a changed secret keeps its new value', async () => {
    const run = vi.fn((input: unknown) => ok(input))
    const tm = createTestToolmark()
    tm.register(payDef(run))
    const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    const b = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    const edited = structuredClone(publicInput)
    edited.name = 'Order 2'
    expect(await tm.confirmPending(a.confirmId, { approved: true, input: edited })).toEqual(
      ok({ ...payInput, name: 'Order 2' }),
    )
    const changed = structuredClone(publicInput)
    changed.password = 'new-pass'
    changed.cards[1]!.cvc = '999'
    expect(await tm.confirmPending(b.confirmId, { approved: true, input: changed })).toEqual(
      ok({
        ...payInput,
        password: 'new-pass',
        cards: [
          { last4: '1111', cvc: '123' },
          { last4: '2222', cvc: '999' },
        ],
      }),
    )
  })

  it.each([
    ['outside the sensitive paths', (e: typeof publicInput) => (e.name = '[redacted]'), ['name']],
    ['in a deleted row (array length changed)', (e: typeof publicInput) => e.cards.shift(), ['cards.0.cvc']],
    ['in reordered rows', (e: typeof publicInput) => e.cards.reverse(), ['cards.0.cvc', 'cards.1.cvc']],
    [
      'in a row whose non-sensitive values changed',
      (e: typeof publicInput) => (e.cards[0]!.last4 = '9999'),
      ['cards.0.cvc'],
    ],
    [
      'in an inserted row',
      (e: typeof publicInput) => e.cards.unshift({ last4: '0000', cvc: '[redacted]' }),
      ['cards.0.cvc', 'cards.1.cvc', 'cards.2.cvc'],
    ],
  ])(
    'a placeholder %s is invalid "Re-enter sensitive field" at its path and does not consume the id',
    async (_what, edit, paths) => {
      const run = vi.fn((input: unknown) => ok(input))
      const tm = createTestToolmark()
      tm.register(payDef(run))
      const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
      const edited = structuredClone(publicInput)
      edit(edited)
      expect(await tm.confirmPending(a.confirmId, { approved: true, input: edited })).toEqual({
        status: 'invalid',
        issues: paths.map((path) => ({ path, message: 'Re-enter sensitive field' })),
      })
      expect(run).not.toHaveBeenCalled()
      expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok(payInput))
    },
  )

  it('unreadable sensitive paths: the whole input is [redacted]; a placeholder anywhere at approval is refused', async () => {
    let readable = false
    const run = vi.fn((input: unknown) => ok(input))
    const tm = createTestToolmark()
    tm.register(
      payDef(run, () => {
        if (!readable) throw new Error('cannot read')
        return ['password', 'cards[].cvc']
      }),
    )
    const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    expect(tm.pendingConfirmations()[0]?.input).toBe('[redacted]')
    expect(await tm.confirmPending(a.confirmId, { approved: true, input: '[redacted]' })).toEqual({
      status: 'invalid',
      issues: [{ path: '', message: 'Re-enter sensitive field' }],
    })
    // Readable at request time, unreadable at approval: no placeholder can be restored.
    readable = true
    const b = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    expect(tm.pendingConfirmations()[1]?.input).toEqual(publicInput)
    readable = false
    const edited = structuredClone(publicInput)
    const r = await tm.confirmPending(b.confirmId, { approved: true, input: edited })
    expect(r).toEqual({
      status: 'invalid',
      issues: [
        { path: 'password', message: 'Re-enter sensitive field' },
        { path: 'cards.0.cvc', message: 'Re-enter sensitive field' },
        { path: 'cards.1.cvc', message: 'Re-enter sensitive field' },
      ],
    })
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok(payInput))
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('nested arrays: orders[].cards[].cvc is redacted at every index and restored on the same rows', async () => {
    const input = {
      orders: [
        { id: 1, cards: [{ cvc: '111' }, { cvc: '222' }] },
        { id: 2, cards: [{ cvc: '333' }] },
      ],
    }
    const run = vi.fn((i: unknown) => ok(i))
    const tm = createTestToolmark()
    tm.register({
      name: 'n',
      description: 'd',
      hints: { consequential: true },
      sensitivePaths: ['orders[].cards[].cvc'],
      run,
    })
    const a = needs(await tm.call('n', input, { caller: 'inapp' }))
    const shown = tm.pendingConfirmations()[0]?.input
    expect(shown).toEqual({
      orders: [
        { id: 1, cards: [{ cvc: '[redacted]' }, { cvc: '[redacted]' }] },
        { id: 2, cards: [{ cvc: '[redacted]' }] },
      ],
    })
    expect(await tm.confirmPending(a.confirmId, { approved: true, input: shown })).toEqual(ok(input))
  })

  it('ctx.confirm changes: at cards.0.cvc redacted; of cards or cards.0 kept with each cvc redacted', async () => {
    const seen: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (r) => {
        seen.push(r)
        return { approved: true }
      },
    })
    const changes: FieldChange[] = [
      { path: 'cards.0.cvc', before: '123', after: '999' },
      { path: 'cards', before: [{ last4: '1111', cvc: '123' }], after: [] },
      { path: 'cards.1', after: { last4: '2222', cvc: '456' } },
      { path: 'password', before: 'old' },
      { path: 'name', before: 'a', after: 'b' },
    ]
    tm.register({
      name: 'edit',
      description: 'd',
      hints: { readOnly: true },
      sensitivePaths: ['password', 'cards[].cvc'],
      run: async (_: unknown, ctx: ToolContext) => ok(await ctx.confirm({ summary: 'Save?', changes })),
    })
    expect(await tm.call('edit', payInput, { caller: 'mcp' })).toEqual(ok({ approved: true }))
    expect(seen[0]?.kind).toBe('ctx')
    expect(seen[0]?.input).toEqual(publicInput)
    expect(seen[0]?.changes).toEqual([
      { path: 'cards.0.cvc', before: '[redacted]', after: '[redacted]' },
      { path: 'cards', before: [{ last4: '1111', cvc: '[redacted]' }], after: [] },
      { path: 'cards.1', after: { last4: '2222', cvc: '[redacted]' } },
      { path: 'password', before: '[redacted]' },
      { path: 'name', before: 'a', after: 'b' },
    ])
    expect(changes[0]?.before).toBe('123') // the tool's own objects are never mutated
  })
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

describe('createTestToolmark', () => {
  it('keeps the production modes and approves inline requests by default', async () => {
    const run = vi.fn((input: unknown, ctx: ToolContext) => ok({ input, caller: ctx.caller }))
    const tm = createTestToolmark()
    tm.register(createDef(run as never))
    expect((await tm.call('create', { name: 'A' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
    for (const caller of ['webmcp', 'mcp', 'tour', 'test'] as const) {
      expect(await tm.call('create', { name: 'A' }, { caller })).toEqual(ok({ input: { name: 'A' }, caller }))
    }
    expect(tm.pendingConfirmations()).toHaveLength(1)
  })

  it('is a development registry by default (misconfiguration throws); a rejecting handler can be installed', async () => {
    const tm = createTestToolmark({ confirm: rejectAll })
    expect(tm.dev).toBe(true)
    expect(() => tm.register({ name: 'a b', description: 'd', run: () => ok() })).toThrow()
    tm.register(createDef())
    expect(await tm.call('create', { name: 'A' }, { caller: 'test' })).toEqual(OPERATOR)
  })
})

describe('approval is bound to what the user saw', () => {
  it('approve(confirmId) of an inline request cannot be done through confirmPending, and a confirmId alone runs nothing', async () => {
    const queue = createConfirmQueue()
    const run = vi.fn(() => ok())
    const tm = createTestToolmark({ confirm: queue.handler })
    tm.register(createDef(run))
    const p = tm.call('create', { name: 'A' }, { caller: 'webmcp' })
    await tick()
    const id = queue.getPending()[0]!.confirmId
    expect(await tm.confirmPending(id, { approved: true })).toEqual(EXPIRED)
    expect(run).not.toHaveBeenCalled()
    queue.reject(id)
    expect(await p).toEqual(OPERATOR)
  })

  it('the interaction event records each human decision', async () => {
    const tm = createTestToolmark()
    const interactions: ToolmarkEvents['interaction'][] = []
    tm.events.on('interaction', (e) => interactions.push(e))
    tm.register(createDef())
    const a = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    const b = needs(await tm.call('create', { name: 'B' }, { caller: 'inapp' }))
    await tm.confirmPending(a.confirmId, { approved: true })
    await tm.confirmPending(b.confirmId, { approved: false })
    expect(interactions).toEqual([
      { kind: 'approved', confirmId: a.confirmId, tool: 'create' },
      { kind: 'rejected', confirmId: b.confirmId, tool: 'create' },
    ])
  })
})
