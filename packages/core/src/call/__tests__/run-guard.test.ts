/**
 * Where a run starts: a call that was aborted, whose tool went away, or whose approval expired while
 * it waited (asynchronous validation, the scope's queue, an inline confirmation, re-validation of an
 * edited input) never runs its handler.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { slowSchema } from '../../../../../tests/support/slow-schema.ts'
import { tick } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ConfirmOutcome, ConfirmRequest, RunResult, Toolmark } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
})

const OBJECT = { type: 'object' } as const
const CANCELLED = { status: 'cancelled', by: 'signal' }

describe('a call aborted before its handler starts never runs', () => {
  it('abort during asynchronous validation answers cancelled at once, even if the validator never settles', async () => {
    const tm = createTestToolmark()
    const slow = slowSchema<{ q: string }>()
    const run = vi.fn(() => ok('ran'))
    tm.register({
      name: 'act',
      description: 'd',
      hints: { readOnly: true },
      input: slow.schema,
      jsonSchema: OBJECT,
      run,
    })
    const controller = new AbortController()
    const pending = tm.call('act', { q: 'x' }, { caller: 'inapp', signal: controller.signal })
    await tick()
    expect(slow.started()).toBe(1)
    controller.abort()
    expect(await pending).toEqual(CANCELLED)
    slow.pass()
    await tick()
    expect(run).not.toHaveBeenCalled()
  })

  it('abort during validation, then the validator passes: still cancelled, still not run', async () => {
    const tm = createTestToolmark()
    const slow = slowSchema<{ q: string }>()
    const run = vi.fn(() => ok('ran'))
    tm.register({
      name: 'act',
      description: 'd',
      hints: { readOnly: true },
      input: slow.schema,
      jsonSchema: OBJECT,
      run,
    })
    const controller = new AbortController()
    const pending = tm.call('act', { q: 'x' }, { caller: 'inapp', signal: controller.signal })
    await tick()
    slow.pass()
    controller.abort()
    expect(await pending).toEqual(CANCELLED)
    expect(run).not.toHaveBeenCalled()
  })

  it('the call deadline runs from acceptance: it can fall during asynchronous validation', async () => {
    vi.useFakeTimers()
    const tm = createTestToolmark({ callTimeoutMs: 1_000 })
    const slow = slowSchema<{ q: string }>()
    const run = vi.fn(() => ok('ran'))
    tm.register({
      name: 'act',
      description: 'd',
      hints: { readOnly: true },
      input: slow.schema,
      jsonSchema: OBJECT,
      run,
    })
    const pending = tm.call('act', { q: 'x' }, { caller: 'inapp' })
    await vi.advanceTimersByTimeAsync(1_001)
    expect(await pending).toEqual(CANCELLED)
    slow.pass()
    await vi.advanceTimersByTimeAsync(10)
    expect(run).not.toHaveBeenCalled()
  })

  it('abort while the call waits in its scope queue', async () => {
    const tm = createTestToolmark()
    let release!: () => void
    const first = vi.fn(() => new Promise<RunResult>((r) => (release = () => r(ok('first')))))
    const second = vi.fn(() => ok('second'))
    tm.register({ name: 'first', description: 'd', hints: { readOnly: true }, run: first })
    tm.register({ name: 'second', description: 'd', hints: { readOnly: true }, run: second })
    const blocking = tm.call('first', {}, { caller: 'inapp' })
    const controller = new AbortController()
    const queued = tm.call('second', {}, { caller: 'inapp', signal: controller.signal })
    await tick()
    controller.abort()
    expect(await queued).toEqual(CANCELLED)
    release()
    expect(await blocking).toEqual({ status: 'ok', data: 'first' })
    await tick()
    expect(second).not.toHaveBeenCalled()
  })

  it('abort while an inline confirmation is open: cancelled, the handler does not run, the request is withdrawn', async () => {
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler })
    const run = vi.fn(() => ok('ran'))
    tm.register({ name: 'pay', description: 'd', hints: { consequential: true }, run })
    const controller = new AbortController()
    const pending = tm.call('pay', {}, { caller: 'webmcp', signal: controller.signal })
    await tick()
    expect(queue.getPending()).toHaveLength(1)
    const request = queue.getPending()[0]!
    controller.abort()
    expect(await pending).toEqual(CANCELLED)
    queue.approve(request.confirmId)
    await tick()
    expect(run).not.toHaveBeenCalled()
    expect(queue.getPending()).toHaveLength(0)
  })

  it('an aborted call to a consequential tool creates no pending confirmation (deferred and inline)', async () => {
    const asked = vi.fn<(r: ConfirmRequest) => ConfirmOutcome>(() => ({ approved: true }))
    const tm = createTestToolmark({ confirm: asked })
    const slow = slowSchema<{ name: string }>()
    const run = vi.fn(() => ok('ran'))
    tm.register({
      name: 'create',
      description: 'd',
      hints: { consequential: true },
      input: slow.schema,
      jsonSchema: OBJECT,
      run,
    })
    const confirmEvents: unknown[] = []
    tm.events.on('confirm', (e) => confirmEvents.push(e))
    for (const caller of ['inapp', 'webmcp'] as const) {
      const controller = new AbortController()
      const pending = tm.call('create', { name: 'x' }, { caller, signal: controller.signal })
      await tick()
      slow.pass()
      controller.abort()
      expect(await pending).toEqual(CANCELLED)
    }
    expect(tm.pendingConfirmations()).toEqual([])
    expect(asked).not.toHaveBeenCalled()
    expect(confirmEvents).toEqual([])
    expect(run).not.toHaveBeenCalled()
  })

  it('a signal aborted before the call is accepted never runs (sync path)', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    tm.register({ name: 'act', description: 'd', hints: { readOnly: true }, run })
    expect(await tm.call('act', {}, { caller: 'inapp', signal: AbortSignal.abort() })).toEqual(CANCELLED)
    expect(run).not.toHaveBeenCalled()
  })
})

describe('a tool disposed while a call or an approval waits never runs', () => {
  /** A registry whose `blocker` tool holds the root scope's queue until `release()`. */
  function busyRegistry(options: Parameters<typeof createTestToolmark>[0] = {}) {
    const tm = createTestToolmark(options)
    let release!: () => void
    tm.register({
      name: 'blocker',
      description: 'd',
      hints: { readOnly: true },
      run: () => new Promise<RunResult>((r) => (release = () => r(ok('done')))),
    })
    const blocking = tm.call('blocker', {}, { caller: 'inapp' })
    return { tm, blocking, release: () => release() }
  }

  const disposals = {
    handle: (tm: Toolmark, run: () => RunResult) => {
      const h = tm.register({ name: 'act', description: 'd', hints: { readOnly: true }, run })
      return () => h.dispose()
    },
    'registration signal': (tm: Toolmark, run: () => RunResult) => {
      const c = new AbortController()
      tm.register({ name: 'act', description: 'd', hints: { readOnly: true }, run }, { signal: c.signal })
      return () => c.abort()
    },
    're-registration under the same name': (tm: Toolmark, run: () => RunResult) => {
      const h = tm.register({ name: 'act', description: 'd', hints: { readOnly: true }, run })
      return () => {
        h.dispose()
        tm.register({ name: 'act', description: 'd', hints: { readOnly: true }, run })
      }
    },
  } as const

  for (const [how, setup] of Object.entries(disposals)) {
    it(`a plain call queued behind another, tool disposed by ${how}: answered as if it came after`, async () => {
      const { tm, blocking, release } = busyRegistry()
      const run = vi.fn(() => ok('ran'))
      const dispose = setup(tm, run)
      await tick()
      const rev = tm.rev
      const withoutRev = tm.call('act', {}, { caller: 'inapp' })
      const withRev = tm.call('act', {}, { caller: 'inapp', rev })
      dispose()
      release()
      await blocking
      const current = tm.rev
      expect(await withoutRev).toEqual({
        status: 'refused',
        code: 'unknown_tool',
        message: 'Unknown tool',
        rev: current,
      })
      expect(await withRev).toEqual({
        status: 'refused',
        code: 'stale',
        message: 'The tool list changed; use the latest manifest',
        rev: current,
      })
      expect(run).not.toHaveBeenCalled()
    })
  }

  it('scope disposal while a call waits in the scope queue', async () => {
    const tm = createTestToolmark()
    const scope = tm.scope('page')
    let release!: () => void
    scope.register({
      name: 'blocker',
      description: 'd',
      hints: { readOnly: true },
      run: () => new Promise<RunResult>((r) => (release = () => r(ok()))),
    })
    const run = vi.fn(() => ok('ran'))
    scope.register({ name: 'act', description: 'd', hints: { readOnly: true }, run })
    const blocking = tm.call('page.blocker', {}, { caller: 'inapp' })
    const queued = tm.call('page.act', {}, { caller: 'inapp' })
    scope.dispose()
    release()
    await blocking
    expect(await queued).toMatchObject({ status: 'refused', code: 'unknown_tool' })
    expect(run).not.toHaveBeenCalled()
  })

  it('a tool disposed during asynchronous validation is not run, nor is its replacement', async () => {
    const tm = createTestToolmark()
    const slow = slowSchema<{ q: string }>()
    const oldRun = vi.fn(() => ok('old'))
    const newRun = vi.fn(() => ok('new'))
    const h = tm.register({
      name: 'act',
      description: 'd',
      hints: { readOnly: true },
      input: slow.schema,
      jsonSchema: OBJECT,
      run: oldRun,
    })
    await tick()
    const rev = tm.rev
    const pending = tm.call('act', { q: 'x' }, { caller: 'inapp', rev })
    await tick()
    h.dispose()
    tm.register({ name: 'act', description: 'd', hints: { readOnly: true }, run: newRun })
    slow.pass()
    expect(await pending).toMatchObject({ status: 'refused', code: 'stale', rev: tm.rev })
    expect(oldRun).not.toHaveBeenCalled()
    expect(newRun).not.toHaveBeenCalled()
  })

  it('an approved deferred confirmation waiting in the queue, tool disposed: refused stale, confirmId used up', async () => {
    const { tm, blocking, release } = busyRegistry()
    const run = vi.fn(() => ok('ran'))
    const h = tm.register({ name: 'create', description: 'd', hints: { consequential: true }, run })
    const asked = await tm.call('create', {}, { caller: 'inapp' })
    expect(asked.status).toBe('needs_confirmation')
    const confirmId = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    const settled: unknown[] = []
    tm.events.on('confirm', (e) => settled.push(e.phase === 'settled' ? e.outcome : e.phase))
    const approval = tm.confirmPending(confirmId, { approved: true })
    await tick()
    h.dispose()
    release()
    await blocking
    expect(await approval).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(run).not.toHaveBeenCalled()
    expect(settled).toEqual(['stale'])
    expect(await tm.confirmPending(confirmId, { approved: true })).toMatchObject({
      status: 'refused',
      code: 'confirmation_expired',
    })
  })

  it('an approved deferred confirmation whose expiry passes while it waits in the queue does not run', async () => {
    vi.useFakeTimers()
    const { tm, blocking, release } = busyRegistry({ confirmExpiryMs: 5_000, callTimeoutMs: 60_000 })
    const run = vi.fn(() => ok('ran'))
    tm.register({ name: 'create', description: 'd', hints: { consequential: true }, run })
    const asked = await tm.call('create', {}, { caller: 'inapp' })
    const confirmId = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    const approval = tm.confirmPending(confirmId, { approved: true })
    await vi.advanceTimersByTimeAsync(6_000)
    release()
    await blocking
    expect(await approval).toMatchObject({ status: 'refused', code: 'confirmation_expired' })
    expect(run).not.toHaveBeenCalled()
  })

  it('an inline approval with edited input, tool disposed while the edit is re-validated: nothing runs', async () => {
    const slow = slowSchema<{ name: string }>()
    const run = vi.fn(() => ok('ran'))
    const tm = createTestToolmark({
      confirm: () => ({ approved: true, input: { name: 'edited' } }),
    })
    const h = tm.register({
      name: 'create',
      description: 'd',
      hints: { consequential: true },
      input: slow.schema,
      jsonSchema: OBJECT,
      run,
    })
    const pending = tm.call('create', { name: 'x' }, { caller: 'webmcp' })
    await tick()
    slow.pass() // the call's own validation
    await tick()
    expect(slow.started()).toBe(1) // the edit's re-validation is under way
    h.dispose()
    slow.pass()
    expect(await pending).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(run).not.toHaveBeenCalled()
  })

  it('a deferred approval whose edit is re-validated while the tool is re-registered: nothing runs', async () => {
    const slow = slowSchema<{ name: string }>()
    const tm = createTestToolmark()
    const run = vi.fn(() => ok('ran'))
    const replacement = vi.fn(() => ok('replacement'))
    const def = {
      name: 'create',
      description: 'd',
      hints: { consequential: true },
      input: slow.schema,
      jsonSchema: OBJECT,
    }
    const h = tm.register({ ...def, run })
    const askedP = tm.call('create', { name: 'x' }, { caller: 'inapp' })
    await tick()
    slow.pass()
    const asked = await askedP
    const confirmId = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    const approval = tm.confirmPending(confirmId, { approved: true, input: { name: 'y' } })
    await tick()
    h.dispose()
    tm.register({ ...def, run: replacement })
    slow.pass()
    expect(await approval).toMatchObject({ status: 'refused', code: 'stale' })
    expect(run).not.toHaveBeenCalled()
    expect(replacement).not.toHaveBeenCalled()
  })
})

describe('confirmation payloads carry no secret', () => {
  it('a sensitive name gives no target, and the summary is computed from the redacted input', async () => {
    const requests: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (r) => {
        requests.push(r)
        return { approved: true }
      },
    })
    const run = vi.fn((input: { name: string }) => ok(input.name))
    tm.register({
      name: 'rename',
      description: 'd',
      hints: { consequential: true },
      input: z.object({ name: z.string() }),
      sensitivePaths: ['name'],
      summary: ({ name }) => `Rename to ${name}`,
      run,
    })
    const events: string[] = []
    tm.events.on('confirm', (e) => events.push(JSON.stringify(e)))
    const deferred = await tm.call('rename', { name: 's3cret' }, { caller: 'inapp' })
    expect(deferred).toMatchObject({ status: 'needs_confirmation', summary: 'Rename to [redacted]' })
    const [card] = tm.pendingConfirmations()
    expect(card).not.toHaveProperty('target')
    expect(JSON.stringify(card)).not.toContain('s3cret')
    expect(await tm.call('rename', { name: 's3cret' }, { caller: 'webmcp' })).toEqual({
      status: 'ok',
      data: 's3cret',
    })
    expect(requests[0]).not.toHaveProperty('target')
    expect(requests[0]?.summary).toBe('Rename to [redacted]')
    expect(events.join('\n')).not.toContain('s3cret')
    expect(JSON.stringify(deferred)).not.toContain('s3cret')
  })

  it('sensitive paths that cannot be read redact the whole input: no target either', async () => {
    const tm = createTestToolmark({ dev: false })
    tm.register({
      name: 'rename',
      description: 'd',
      hints: { consequential: true },
      input: z.object({ name: z.string() }),
      sensitivePaths: () => {
        throw new Error('unreadable')
      },
      run: () => ok(),
    })
    await tm.call('rename', { name: 's3cret' }, { caller: 'inapp' })
    const [card] = tm.pendingConfirmations()
    expect(card?.input).toBe('[redacted]')
    expect(card).not.toHaveProperty('target')
    expect(JSON.stringify(card)).not.toContain('s3cret')
  })

  it('a name that is not sensitive is still the target', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'create',
      description: 'd',
      hints: { consequential: true },
      input: z.object({ name: z.string(), pin: z.string() }),
      sensitivePaths: ['pin'],
      run: () => ok(),
    })
    await tm.call('create', { name: 'Robotics', pin: '1234' }, { caller: 'inapp' })
    const [card] = tm.pendingConfirmations()
    expect(card?.target).toBe('Robotics')
    expect(card?.input).toEqual({ name: 'Robotics', pin: '[redacted]' })
  })
})
