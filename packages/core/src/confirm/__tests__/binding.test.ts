/**
 * An approval is bound to the registration and to what the user saw, not to the tool's name.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDef, EXPIRED, needs, OPERATOR, tick, withEvents } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ToolmarkEvents } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
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
