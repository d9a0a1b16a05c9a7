import type { RunResult, ToolContext, Toolmark, ToolmarkOptions } from '@toolmark/core'
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { bridge, getClientId } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import type { BridgeTransport } from '../transport.ts'
import { tick } from './helpers.ts'

const CLIENT = 'client-under-test'

function setup(
  options: ToolmarkOptions = {},
  bridgeOptions: { onChange?: 'manifest' | 'changed'; maxMessageBytes?: number } = {},
) {
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: string[] = []
  tm.events.on('error', (e) => errors.push(e.code))
  const { transport, agent } = createInPageChannel()
  const received: Record<string, unknown>[] = []
  agent.onMessage((m) => received.push(m as Record<string, unknown>))
  const dispose = tm.use(bridge({ transport, clientId: CLIENT, ...bridgeOptions }))
  const send = (m: object) => agent.send({ protocol: 1, clientId: CLIENT, ...m })
  const results = () => received.filter((m) => m.type === 'result')
  return { tm, agent, received, errors, dispose, send, results, transport }
}

const searchRun = vi.fn(({ query }: { query: string }) => ok({ query }))
const register = (tm: Toolmark) => {
  tm.register({
    name: 'search',
    description: 'Search',
    input: z.object({ query: z.string() }),
    hints: { readOnly: true },
    run: searchRun,
  })
  tm.register({
    name: 'create',
    description: 'Create',
    input: z.object({ name: z.string() }),
    hints: { consequential: true },
    summary: ({ name }) => `Create "${name}"`,
    run: ({ name }) => ok({ created: name }),
  })
}

afterEach(() => {
  searchRun.mockClear()
  vi.useRealTimers()
})

describe('bridge: manifest', () => {
  it('sends the manifest on attach and on every revision', async () => {
    const { tm, received } = setup()
    await tick()
    expect(received).toEqual([{ protocol: 1, type: 'manifest', clientId: CLIENT, rev: 0, tools: [] }])
    register(tm)
    await tick()
    expect(received.at(-1)).toMatchObject({
      type: 'manifest',
      rev: tm.rev,
      tools: [{ name: 'create' }, { name: 'search' }],
    })
    expect(received).toHaveLength(2)
  })

  it('never sends the same revision twice (tools registered before attach)', async () => {
    const tm = createTestToolmark({ dev: false })
    register(tm)
    const { transport, agent } = createInPageChannel()
    const received: Record<string, unknown>[] = []
    agent.onMessage((m) => received.push(m as Record<string, unknown>))
    tm.use(bridge({ transport, clientId: CLIENT }))
    await tick()
    expect(received.map((m) => `${m.type}:${m.rev}`)).toEqual([`manifest:${tm.rev}`])
  })

  it("sends changed instead in onChange: 'changed' mode", async () => {
    const { tm, received } = setup({}, { onChange: 'changed' })
    register(tm)
    await tick()
    expect(received.at(-1)).toEqual({ protocol: 1, type: 'changed', clientId: CLIENT, rev: tm.rev })
  })

  it('only accepts the inapp caller and a sane transport', () => {
    const { transport } = createInPageChannel()
    expect(() => bridge({ transport, caller: 'webmcp' as never })).toThrow(/inapp/)
    expect(() => bridge({ transport: {} as BridgeTransport })).toThrow(TypeError)
    expect(getClientId()).toMatch(/^[0-9a-f-]{36}$/)
    expect(getClientId()).toBe(bridge({ transport }).clientId)
  })
})

describe('bridge: calls', () => {
  it('runs a call as inapp and answers exactly one result', async () => {
    const { tm, send, results } = setup()
    register(tm)
    send({ type: 'call', id: 'c1', tool: 'search', input: { query: 'robotics' } })
    await tick()
    expect(results()).toEqual([
      {
        protocol: 1,
        type: 'result',
        clientId: CLIENT,
        id: 'c1',
        result: { status: 'ok', data: { query: 'robotics' } },
      },
    ])
  })

  it('ignores duplicate ids, in flight or among the last 1000 answered', async () => {
    const { tm, send, results } = setup()
    register(tm)
    send({ type: 'call', id: 'dup', tool: 'search', input: { query: 'a' } })
    send({ type: 'call', id: 'dup', tool: 'search', input: { query: 'b' } })
    await tick()
    send({ type: 'call', id: 'dup', tool: 'search', input: { query: 'c' } })
    await tick()
    expect(results()).toHaveLength(1)
    expect(searchRun).toHaveBeenCalledTimes(1)
  })

  it('forgets the oldest answered id after 1000 more', async () => {
    const { tm, send, results } = setup()
    tm.register({ name: 'n', description: 'd', hints: { readOnly: true }, run: () => ok() })
    for (let i = 0; i <= 1000; i++) send({ type: 'describe', id: `d${i}`, tool: 'n' })
    await tick()
    send({ type: 'describe', id: 'd0', tool: 'n' })
    send({ type: 'describe', id: 'd1000', tool: 'n' })
    await tick()
    expect(results().filter((r) => r.id === 'd0')).toHaveLength(2)
    expect(results().filter((r) => r.id === 'd1000')).toHaveLength(1)
  })

  it('ignores messages for another clientId silently', async () => {
    const { tm, agent, results, errors } = setup()
    register(tm)
    agent.send({
      protocol: 1,
      clientId: 'other-tab',
      type: 'call',
      id: 'x',
      tool: 'search',
      input: { query: 'a' },
    })
    await tick()
    expect(results()).toEqual([])
    expect(searchRun).not.toHaveBeenCalled()
    expect(errors).toEqual([])
  })

  it('answers unsupported protocol only with a string id and this clientId', async () => {
    const { agent, results, errors } = setup()
    agent.send({ protocol: 2, clientId: CLIENT, id: 'v2', anything: { new: true } })
    agent.send({ protocol: 2, clientId: 'other', id: 'v2b' })
    agent.send({ protocol: 2, clientId: CLIENT, id: 7 })
    await tick()
    expect(results()).toEqual([
      {
        protocol: 1,
        type: 'result',
        clientId: CLIENT,
        id: 'v2',
        result: { status: 'error', message: 'unsupported protocol' },
      },
    ])
    expect(errors).toEqual(['invalid_message'])
  })

  it('drops invalid, oversize and too-deep messages with invalid_message and never answers', async () => {
    const { tm, send, agent, results, errors } = setup({}, { maxMessageBytes: 200 })
    register(tm)
    send({ type: 'call', id: 'a', tool: 'search', input: { query: 'x'.repeat(300) } })
    let deep: Record<string, unknown> = {}
    const root = deep
    for (let i = 0; i < 70; i++) deep = deep.n = {} as Record<string, unknown>
    send({ type: 'call', id: 'b', tool: 'search', input: root })
    send({ type: 'call', id: 'c', tool: 'search' })
    send({ type: 'call', id: 'd', tool: 'search', input: {}, extra: 1 })
    send({ type: 'manifest', rev: 1, tools: [] })
    agent.send('not an object')
    await tick()
    expect(results()).toEqual([])
    expect(errors).toEqual(Array(6).fill('invalid_message'))
  })

  it('answers unknown_tool and stale with the current rev', async () => {
    const { tm, send, results } = setup()
    register(tm)
    const rev = tm.rev
    tm.register({ name: 'tmp', description: 'd', hints: { readOnly: true }, run: () => ok() }).dispose()
    send({ type: 'call', id: 'u', tool: 'nope', input: {} })
    send({ type: 'describe', id: 'dd', tool: 'nope' })
    send({ type: 'call', id: 's', tool: 'tmp', input: {}, rev })
    await tick()
    expect(results().map((r) => r.result)).toEqual([
      { status: 'refused', code: 'unknown_tool', message: expect.any(String), rev: tm.rev },
      { status: 'refused', code: 'unknown_tool', message: expect.any(String), rev: tm.rev },
      { status: 'refused', code: 'stale', message: expect.any(String), rev: tm.rev },
    ])
  })

  it('describe returns the full entry with inputSchema', async () => {
    const { tm, send, results } = setup()
    register(tm)
    send({ type: 'describe', id: 'd', tool: 'search' })
    await tick()
    expect(results()[0]?.result).toMatchObject({
      status: 'ok',
      data: { name: 'search', inputSchema: { type: 'object' } },
    })
  })

  it('cancel aborts the in-flight call; its own result still follows', async () => {
    const { tm, send, results } = setup()
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((_r, reject) =>
          ctx.signal.addEventListener('abort', () => reject(new Error('stop'))),
        ),
    })
    send({ type: 'call', id: 'long', tool: 'slow', input: {} })
    await tick()
    send({ type: 'cancel', id: 'long' })
    await tick()
    expect(results()).toEqual([
      {
        protocol: 1,
        type: 'result',
        clientId: CLIENT,
        id: 'long',
        result: { status: 'cancelled', by: 'signal' },
      },
    ])
  })

  it('sends results as detached JSON copies (Date → ISO; BigInt → Result not serializable + transport_failed)', async () => {
    const { tm, send, results, errors } = setup()
    const data = { when: new Date('2026-01-02T03:04:05.000Z'), gone: undefined }
    tm.register({ name: 'date', description: 'd', hints: { readOnly: true }, run: () => ok(data) })
    tm.register({ name: 'big', description: 'd', hints: { readOnly: true }, run: () => ok({ n: 10n }) })
    send({ type: 'call', id: 'd', tool: 'date', input: {} })
    send({ type: 'call', id: 'b', tool: 'big', input: {} })
    await tick()
    expect(results().map((r) => r.result)).toEqual([
      { status: 'ok', data: { when: '2026-01-02T03:04:05.000Z' } },
      { status: 'error', message: 'Result not serializable' },
    ])
    expect(errors).toContain('transport_failed')
  })

  it('reports transport_failed when send rejects', async () => {
    const tm = createTestToolmark({ dev: false })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    tm.use(
      bridge({
        clientId: CLIENT,
        transport: { send: () => Promise.reject(new Error('offline')), onMessage: () => () => {} },
      }),
    )
    await tick()
    expect(errors).toEqual(['transport_failed'])
  })
})

describe('bridge: deferred confirmation', () => {
  it('sends confirmed after the result, for approve, reject and expiry', async () => {
    vi.useFakeTimers()
    const { tm, send, received } = setup({ confirmExpiryMs: 1000 })
    register(tm)
    for (const id of ['approve', 'reject', 'expire'])
      send({ type: 'call', id, tool: 'create', input: { name: id } })
    await vi.advanceTimersByTimeAsync(0)
    const confirmIds = Object.fromEntries(
      received
        .filter((m) => m.type === 'result')
        .map((m) => [m.id, (m.result as { confirmId: string }).confirmId]),
    )
    await tm.confirmPending(confirmIds.approve!, { approved: true })
    await tm.confirmPending(confirmIds.reject!, { approved: false })
    await vi.advanceTimersByTimeAsync(1000)
    const confirmed = received.filter((m) => m.type === 'confirmed')
    expect(confirmed).toEqual([
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId: confirmIds.approve,
        result: { status: 'ok', data: { created: 'approve' } },
      },
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId: confirmIds.reject,
        result: { status: 'cancelled', by: 'operator' },
      },
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId: confirmIds.expire,
        result: {
          status: 'refused',
          code: 'confirmation_expired',
          message: 'The confirmation expired or was already used',
        },
      },
    ])
  })

  it('sends confirmed when a confirmation is evicted by the 100 cap', async () => {
    const { tm, send, received } = setup()
    register(tm)
    for (let i = 0; i < 101; i++)
      send({ type: 'call', id: `c${i}`, tool: 'create', input: { name: `n${i}` } })
    await tick()
    const first = received.find((m) => m.type === 'result' && m.id === 'c0')!.result as { confirmId: string }
    const confirmed = received.filter((m) => m.type === 'confirmed')
    expect(confirmed).toEqual([
      expect.objectContaining({
        confirmId: first.confirmId,
        result: expect.objectContaining({ code: 'confirmation_expired' }),
      }),
    ])
    const order = received.map((m) => `${m.type}:${m.id ?? m.confirmId}`)
    expect(order.indexOf(`confirmed:${first.confirmId}`)).toBeGreaterThan(order.indexOf('result:c0'))
  })
})

describe('bridge: re-attach (provider remount, HMR)', () => {
  it('delivers confirmed for confirmations created by an earlier attach of the same clientId', async () => {
    const tm = createTestToolmark({ dev: false })
    register(tm)
    const first = createInPageChannel()
    const off = tm.use(bridge({ transport: first.transport, clientId: CLIENT }))
    const firstSeen: Record<string, unknown>[] = []
    first.agent.onMessage((m) => firstSeen.push(m as Record<string, unknown>))
    for (const id of ['a', 'b'])
      first.agent.send({
        protocol: 1,
        clientId: CLIENT,
        type: 'call',
        id,
        tool: 'create',
        input: { name: id },
      })
    await tick()
    const ids = firstSeen
      .filter((m) => m.type === 'result')
      .map((m) => (m.result as { confirmId: string }).confirmId)
    off()
    // Approved while no bridge is attached: kept for the next attach.
    await tm.confirmPending(ids[0]!, { approved: true })
    const second = createInPageChannel()
    const secondSeen: Record<string, unknown>[] = []
    second.agent.onMessage((m) => secondSeen.push(m as Record<string, unknown>))
    tm.use(bridge({ transport: second.transport, clientId: CLIENT }))
    await tm.confirmPending(ids[1]!, { approved: false })
    await tick()
    expect(secondSeen.filter((m) => m.type === 'confirmed')).toEqual([
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId: ids[0],
        result: { status: 'ok', data: { created: 'a' } },
      },
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId: ids[1],
        result: { status: 'cancelled', by: 'operator' },
      },
    ])
  })
})

describe('bridge: disposal', () => {
  it('unsubscribes, aborts in-flight calls and closes the transport', async () => {
    const tm = createTestToolmark()
    const { transport, agent } = createInPageChannel()
    const close = vi.spyOn(transport, 'close')
    let aborted = false
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = true
            resolve(ok())
          }),
        ),
    })
    const dispose = tm.use(bridge({ transport, clientId: CLIENT }))
    agent.send({ protocol: 1, clientId: CLIENT, type: 'call', id: 'x', tool: 'slow', input: {} })
    await tick()
    dispose()
    await tick()
    expect(aborted).toBe(true)
    expect(close).toHaveBeenCalledTimes(1)
  })
})

describe('bridge: hostile input (property)', () => {
  it('runs nothing unless a valid call addressed to this page, never throws, answers each valid request once', async () => {
    const hostile = fc.oneof(
      fc.anything(),
      fc.record(
        {
          protocol: fc.constantFrom(1, 2, '1'),
          clientId: fc.constantFrom(CLIENT, 'other', 5),
          type: fc.constantFrom('call', 'describe', 'cancel', 'manifest'),
          id: fc.oneof(fc.string(), fc.integer()),
          tool: fc.constantFrom('search', 'create', 'nope', '__proto__'),
          input: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      fc.constant({
        protocol: 1,
        clientId: CLIENT,
        type: 'call',
        id: 'x',
        tool: 'search',
        input: JSON.parse('{"__proto__": {"polluted": true}, "query": "q"}'),
      }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { maxLength: 20 }), async (messages) => {
        const { tm, agent, received } = setup()
        const run = vi.fn(() => ok())
        tm.register({
          name: 'search',
          description: 'S',
          input: z.object({ query: z.string() }),
          hints: { readOnly: true },
          run,
        })
        let expectedRuns = 0
        const answered = new Set<string>()
        let expectedAnswers = 0
        for (const m of messages) {
          const msg = m as Record<string, unknown>
          const isObj = msg !== null && typeof msg === 'object' && !Array.isArray(msg)
          if (
            isObj &&
            msg.protocol !== 1 &&
            msg.clientId === CLIENT &&
            typeof msg.id === 'string' &&
            !answered.has(msg.id)
          ) {
            answered.add(msg.id)
            expectedAnswers++
          }
          const addressed =
            isObj &&
            msg.protocol === 1 &&
            msg.clientId === CLIENT &&
            typeof msg.id === 'string' &&
            msg.id !== '' &&
            msg.id.length <= 256
          if (
            addressed &&
            typeof msg.tool === 'string' &&
            (msg.type === 'call' || msg.type === 'describe') &&
            !answered.has(msg.id as string)
          ) {
            const keys = Object.keys(msg).filter((k) => msg[k] !== undefined) // JSON drops undefined
            const wellFormed =
              msg.type === 'describe'
                ? keys.every((k) => ['protocol', 'clientId', 'type', 'id', 'tool'].includes(k))
                : keys.every((k) =>
                    ['protocol', 'clientId', 'type', 'id', 'tool', 'input', 'rev'].includes(k),
                  ) &&
                  msg.input !== null &&
                  typeof msg.input === 'object' &&
                  !Array.isArray(msg.input)
            if (wellFormed) {
              answered.add(msg.id as string)
              expectedAnswers++
              const input = msg.input as Record<string, unknown> | undefined
              if (
                msg.type === 'call' &&
                msg.tool === 'search' &&
                typeof input?.query === 'string' &&
                Object.keys(input).length >= 1
              )
                expectedRuns++
            }
          }
          try {
            agent.send(m)
          } catch {
            // the in-page agent refuses nothing; anything thrown here fails the property
            return false
          }
        }
        await tick()
        await tick()
        expect(({} as Record<string, unknown>).polluted).toBeUndefined()
        expect(run.mock.calls.length).toBeLessThanOrEqual(expectedRuns)
        const resultIds = received.filter((r) => r.type === 'result').map((r) => r.id)
        expect(new Set(resultIds).size).toBe(resultIds.length)
        expect(resultIds.length).toBe(expectedAnswers)
        return true
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 150) },
    )
  })
})
