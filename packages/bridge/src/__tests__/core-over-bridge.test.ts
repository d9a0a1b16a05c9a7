/**
 * What the core promises, seen over the bridge: results serialized with JSON semantics, valid
 * page→agent messages whatever a tool returns, a manifest when a scope hides, and no run after a
 * cancel or a disposal during asynchronous validation. (Moved here with the bridge: the core's own
 * tests cannot import the bridge package.)
 */
import { ok, type RunResult, refused, type Toolmark } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { validateMessage } from '@toolmark/protocol'
import { describe, expect, it, vi } from 'vitest'
import { slowSchema } from '../../../../tests/support/slow-schema.ts'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import { CLIENT, tick } from './helpers.ts'

const OBJECT = { type: 'object' } as const
const CANCELLED = { status: 'cancelled', by: 'signal' }

describe('results over the bridge', () => {
  it('over the bridge: a function in ok.data is answered error "Result not serializable" + transport_failed', async () => {
    const tm = createTestToolmark({ dev: false })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    tm.register({
      name: 'fn',
      description: 'd',
      hints: { readOnly: true },
      run: () => ok({ handler: () => 1 }),
    })
    const { transport, agent } = createInPageChannel()
    const received: Record<string, unknown>[] = []
    agent.onMessage((m) => received.push(m as Record<string, unknown>))
    tm.use(bridge({ transport, clientId: CLIENT }))
    agent.send({ protocol: 1, clientId: CLIENT, type: 'call', id: 'f', tool: 'fn', input: {} })
    await tick()
    expect(received.find((m) => m.id === 'f')?.result).toEqual({
      status: 'error',
      message: 'Result not serializable',
    })
    expect(errors).toContain('transport_failed')
  })

  it('every message the bridge sends is a valid page→agent message, whatever a tool returns', async () => {
    const tm = createTestToolmark({ dev: false })
    const returned: Record<string, unknown> = {
      notAllowedWithRev: refused('not_allowed', 'No', 7),
      unknownCode: { status: 'refused', code: 'teapot', message: 'm' },
      cancelledByUser: { status: 'cancelled', by: 'user' },
      okExtraField: { status: 'ok', data: 1, extra: true },
      errorWithoutMessage: { status: 'error' },
    }
    for (const [name, result] of Object.entries(returned)) {
      tm.register({ name, description: 'd', hints: { readOnly: true }, run: () => result as RunResult })
    }
    const { transport, agent } = createInPageChannel()
    const received: Record<string, unknown>[] = []
    agent.onMessage((m) => received.push(m as Record<string, unknown>))
    tm.use(bridge({ transport, clientId: CLIENT }))
    for (const name of Object.keys(returned)) {
      agent.send({ protocol: 1, clientId: CLIENT, type: 'call', id: name, tool: name, input: {} })
    }
    await tick()
    const invalid = received
      .map((m) => ({ id: m.id, check: validateMessage(m, 'toAgent') }))
      .filter((x) => !x.check.ok)
      .map((x) => `${String(x.id)}: ${x.check.ok ? '' : x.check.reason}`)
    expect(invalid).toEqual([])
  })
})

describe('scopes over the bridge', () => {
  it('the bridge publishes the new manifest when such a scope is hidden', async () => {
    const tm = createTestToolmark({ dev: false })
    const s = tm.scope('page', { when: true })
    s.register({ name: 'open', description: 'd', hints: { readOnly: true }, run: () => ok() })
    const { transport, agent } = createInPageChannel()
    const received: Record<string, unknown>[] = []
    agent.onMessage((m) => received.push(m as Record<string, unknown>))
    tm.use(bridge({ transport, clientId: CLIENT }))
    await tick()
    s.setWhen(false)
    await tick()
    expect(received.at(-1)).toMatchObject({ type: 'manifest', tools: [] })
  })
})

describe('over the bridge: cancel and disposal during asynchronous validation', () => {
  const CLIENT = 'guard-client'
  function page(tm: Toolmark) {
    const { transport, agent } = createInPageChannel()
    const received: Array<Record<string, unknown>> = []
    agent.onMessage((m) => received.push(m as Record<string, unknown>))
    const dispose = tm.use(bridge({ transport, clientId: CLIENT }))
    const send = (m: Record<string, unknown>): void => agent.send({ protocol: 1, clientId: CLIENT, ...m })
    const resultOf = (id: string): unknown => received.find((m) => m.type === 'result' && m.id === id)?.result
    return { send, resultOf, dispose }
  }

  it('a cancel while the input is validated answers cancelled and never runs: a retry does not run twice', async () => {
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
    const p = page(tm)
    p.send({ type: 'call', id: 'c1', tool: 'act', input: { q: 'x' } })
    await tick()
    p.send({ type: 'cancel', id: 'c1' })
    await tick()
    expect(p.resultOf('c1')).toEqual(CANCELLED)
    p.send({ type: 'call', id: 'c2', tool: 'act', input: { q: 'x' } })
    await tick()
    slow.pass()
    await tick()
    expect(p.resultOf('c2')).toEqual({ status: 'ok', data: 'ran' })
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('disposing the bridge while the input is validated never runs the handler', async () => {
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
    const p = page(tm)
    p.send({ type: 'call', id: 'c1', tool: 'act', input: { q: 'x' } })
    await tick()
    p.dispose()
    slow.pass()
    await tick()
    expect(run).not.toHaveBeenCalled()
  })
})
