/**
 * Acceptance tests that once failed because the implementation deviated from the documented rules
 * text; each names the sentence it checks. They guard the fixes against regressions.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { bridge } from '../bridge/bridge.ts'
import { createInPageChannel } from '../bridge/in-page.ts'
import { ok, refused } from '../call/result.ts'
import { toJsonSafeResult } from '../call/serialize.ts'
import { environment } from '../env.ts'
import { validateMessage } from '../protocol/validate.ts'
import { createTestToolmark } from '../testing/index.ts'
import { createToolmark } from '../toolmark.ts'
import type { RunResult } from '../types.ts'
import { tick } from './helpers.ts'

const CLIENT = 'failing-client'

afterEach(() => environment.setIsServer(undefined))

describe('"`when` hides a scope\'s tools while false (re-evaluated on `subscribe` notifications)"; every registration change bumps rev', () => {
  it('setWhen(false) on a scope created without `when` hides its tools, bumps rev and notifies', async () => {
    const tm = createTestToolmark()
    const s = tm.scope('page')
    s.register({ name: 'open', description: 'd', hints: { readOnly: true }, run: () => ok() })
    await tick()
    const seenRev = tm.rev
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['page.open']) // caches the manifest at this rev
    const notified: number[] = []
    tm.subscribe((rev) => notified.push(rev))
    s.setWhen(false)
    await tick()
    expect(tm.manifest().tools).toEqual([])
    expect(tm.rev).toBeGreaterThan(seenRev)
    expect(notified).toEqual([tm.rev])
    // The tool disappeared since the caller's rev → stale, not unknown_tool.
    expect(await tm.call('page.open', {}, { caller: 'test', rev: seenRev })).toMatchObject({
      code: 'stale',
      rev: tm.rev,
    })
  })

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

describe('"serialized with JSON semantics (`toJSON` honoured, `undefined` dropped; BigInt, functions, symbols or cycles → `error "Result not serializable"`)"', () => {
  it('a function or symbol value anywhere in the result makes it "Result not serializable"', () => {
    const notSerializable = { status: 'error', message: 'Result not serializable' }
    expect(toJsonSafeResult(ok({ onClick: () => 1 }))).toEqual(notSerializable)
    expect(toJsonSafeResult(ok({ tag: Symbol('x') }))).toEqual(notSerializable)
    expect(toJsonSafeResult(ok([() => 1]))).toEqual(notSerializable)
    expect(toJsonSafeResult(ok(() => 1))).toEqual(notSerializable)
  })

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
})

describe('protocol: rev only for unknown_tool / stale; every result is one of the six shapes', () => {
  it('the public refused() helper never attaches rev to other codes', () => {
    expect(refused('not_allowed', 'No', 7)).toEqual({ status: 'refused', code: 'not_allowed', message: 'No' })
    expect(refused('busy', 'Busy', 7)).not.toHaveProperty('rev')
    expect(refused('stale', 'Gone', 7)).toEqual({ status: 'refused', code: 'stale', message: 'Gone', rev: 7 })
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

describe('types.ts ToolHandle.name "Full name" (the full name is the scope path + . + name)', () => {
  it('the inert SSR handle reports the full name too', () => {
    environment.setIsServer(true)
    const tm = createToolmark()
    const h = tm
      .scope('signup')
      .register({ name: 'fill', description: 'd', hints: { readOnly: true }, run: () => ok() })
    expect(h.name).toBe('signup.fill')
  })
})
