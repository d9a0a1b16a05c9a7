/**
 * Acceptance tests for the page side of bridge protocol v1 (docs/protocol/v1.md): rules 1–8, the
 * inbound limits at their exact boundaries, cancel, confirmed ordering, and the serialization rules.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { bridge } from '../bridge/bridge.ts'
import { createInPageChannel } from '../bridge/in-page.ts'
import type { BridgeTransport } from '../bridge/transport.ts'
import { ok } from '../call/result.ts'
import { environment } from '../env.ts'
import { createTestToolmark } from '../testing/index.ts'
import { createToolmark } from '../toolmark.ts'
import type { RunResult, ToolContext, Toolmark, ToolmarkOptions, ToolResult } from '../types.ts'
import { tick } from './helpers.ts'

const CLIENT = 'acceptance-client'
type Msg = Record<string, unknown>

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

function page(
  options: ToolmarkOptions = {},
  bridgeOptions: { onChange?: 'manifest' | 'changed'; maxMessageBytes?: number } = {},
) {
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: string[] = []
  tm.events.on('error', (e) => errors.push(e.code))
  const { transport, agent } = createInPageChannel()
  const received: Msg[] = []
  agent.onMessage((m) => received.push(m as Msg))
  const dispose = tm.use(bridge({ transport, clientId: CLIENT, ...bridgeOptions }))
  const send = (m: Msg): void => agent.send({ protocol: 1, clientId: CLIENT, ...m })
  const results = (): Msg[] => received.filter((m) => m.type === 'result')
  const resultOf = (id: string): unknown => results().find((m) => m.id === id)?.result
  return { tm, agent, received, errors, dispose, send, results, resultOf, transport }
}

const readTool = (tm: Toolmark, run = vi.fn((input: { query: string }) => ok({ query: input.query }))) => {
  tm.register({
    name: 'search',
    description: 'Search',
    input: z.object({ query: z.string() }),
    hints: { readOnly: true },
    run,
  })
  return run
}

const createTool = (tm: Toolmark, run = vi.fn((input: { name: string }) => ok({ created: input.name }))) => {
  tm.register({
    name: 'create',
    description: 'Create',
    input: z.object({ name: z.string() }),
    hints: { consequential: true },
    summary: ({ name }) => `Create "${name}"`,
    run,
  })
  return run
}

describe('manifest on attach and on every revision', () => {
  it('the attach manifest carries rev and the summaries visible to inapp only', async () => {
    const tm = createTestToolmark({ dev: false, policy: { inapp: ['readOnly', 'consequential'] } })
    readTool(tm)
    createTool(tm)
    tm.register({ name: 'wipe', description: 'Wipe', hints: { destructive: true }, run: () => ok() })
    tm.scope('hidden', { when: false }).register({
      name: 'x',
      description: 'X',
      hints: { readOnly: true },
      run: () => ok(),
    })
    await tick()
    const { transport, agent } = createInPageChannel()
    const received: Msg[] = []
    agent.onMessage((m) => received.push(m as Msg))
    tm.use(bridge({ transport, clientId: CLIENT }))
    await tick()
    expect(received).toEqual([
      {
        protocol: 1,
        type: 'manifest',
        clientId: CLIENT,
        rev: tm.rev,
        tools: [
          { name: 'create', llmName: 'create', description: 'Create', hints: { consequential: true } },
          { name: 'search', llmName: 'search', description: 'Search', hints: { readOnly: true } },
        ],
      },
    ])
  })

  it("onChange 'changed' still sends the manifest on attach, then only { rev } per revision", async () => {
    const { tm, received } = page({}, { onChange: 'changed' })
    await tick()
    expect(received).toEqual([{ protocol: 1, type: 'manifest', clientId: CLIENT, rev: 0, tools: [] }])
    readTool(tm)
    createTool(tm)
    await tick()
    expect(received.slice(1)).toEqual([{ protocol: 1, type: 'changed', clientId: CLIENT, rev: 2 }])
  })

  it('a burst of registrations sends one manifest with the final rev', async () => {
    const { tm, received } = page()
    for (let i = 0; i < 10; i++)
      tm.register({ name: `t${i}`, description: 'd', hints: { readOnly: true }, run: () => ok() })
    await tick()
    const manifests = received.filter((m) => m.type === 'manifest')
    expect(manifests.map((m) => m.rev)).toEqual([0, 10])
  })

  it('only caller inapp is accepted at creation', () => {
    const { transport } = createInPageChannel()
    for (const caller of ['webmcp', 'mcp', 'tour', 'test', 'human', 'INAPP']) {
      expect(() => bridge({ transport, caller: caller as never })).toThrow()
    }
    expect(() => bridge({ transport, caller: 'inapp' })).not.toThrow()
  })
})

describe('calls and describe', () => {
  it('a call runs as caller inapp with the validated input and is answered by exactly one result', async () => {
    const { tm, send, results } = page()
    const callers: string[] = []
    tm.register({
      name: 'who',
      description: 'd',
      input: z.object({ n: z.number() }),
      hints: { readOnly: true },
      run: ({ n }, ctx) => {
        callers.push(ctx.caller)
        return ok(n * 2)
      },
    })
    send({ type: 'call', id: 'c1', tool: 'who', input: { n: 21 } })
    send({ type: 'call', id: 'c2', tool: 'who', input: { n: 'x' } })
    await tick()
    expect(results()).toEqual([
      { protocol: 1, type: 'result', clientId: CLIENT, id: 'c1', result: { status: 'ok', data: 42 } },
      {
        protocol: 1,
        type: 'result',
        clientId: CLIENT,
        id: 'c2',
        result: { status: 'invalid', issues: [{ path: 'n', message: expect.any(String) }] },
      },
    ])
    expect(callers).toEqual(['inapp'])
  })

  it('describe returns the full entry (summary + inputSchema) as ok data', async () => {
    const { tm, send, resultOf } = page()
    tm.register({
      name: 'search',
      title: 'Search',
      description: 'Search challenges',
      input: z.object({ query: z.string() }),
      hints: { readOnly: true },
      run: () => ok(),
    })
    send({ type: 'describe', id: 'd1', tool: 'search' })
    await tick()
    expect(resultOf('d1')).toEqual({
      status: 'ok',
      data: {
        name: 'search',
        llmName: 'search',
        title: 'Search',
        description: 'Search challenges',
        hints: { readOnly: true },
        inputSchema: expect.objectContaining({ type: 'object', required: ['query'] }),
      },
    })
  })

  it('describe of an unknown, hidden (when) or policy-hidden tool → refused unknown_tool with the current rev', async () => {
    const { tm, send, resultOf } = page({ policy: { inapp: ['readOnly'] } })
    tm.scope('off', { when: false }).register({
      name: 'x',
      description: 'd',
      hints: { readOnly: true },
      run: () => ok(),
    })
    createTool(tm)
    await tick()
    send({ type: 'describe', id: 'a', tool: 'nope' })
    send({ type: 'describe', id: 'b', tool: 'off.x' })
    send({ type: 'describe', id: 'c', tool: 'create' })
    await tick()
    const expected = { status: 'refused', code: 'unknown_tool', message: expect.any(String), rev: tm.rev }
    expect([resultOf('a'), resultOf('b'), resultOf('c')]).toEqual([expected, expected, expected])
  })

  it('rev only for unknown_tool/stale: not_allowed and busy carry none', async () => {
    const { tm, send, resultOf } = page({ policy: { inapp: ['readOnly'] } })
    createTool(tm)
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    tm.register({
      name: 'wait',
      description: 'd',
      hints: { readOnly: true },
      run: async () => {
        await gate
        return ok()
      },
    })
    const seen = tm.rev
    tm.register({ name: 'gone', description: 'd', hints: { readOnly: true }, run: () => ok() }).dispose()
    await tick()
    send({ type: 'call', id: 'na', tool: 'create', input: { name: 'x' } })
    for (let i = 0; i < 33; i++) send({ type: 'call', id: `w${i}`, tool: 'wait', input: {} })
    send({ type: 'call', id: 'st', tool: 'gone', input: {}, rev: seen })
    send({ type: 'call', id: 'un', tool: 'never', input: {}, rev: seen })
    await tick()
    expect(resultOf('na')).toEqual({ status: 'refused', code: 'not_allowed', message: expect.any(String) })
    expect(resultOf('w31')).toBeUndefined() // the 32nd pending call is accepted and waits
    expect(resultOf('w32')).toEqual({ status: 'refused', code: 'busy', message: expect.any(String) })
    expect(resultOf('st')).toEqual({
      status: 'refused',
      code: 'stale',
      message: expect.any(String),
      rev: tm.rev,
    })
    expect(resultOf('un')).toEqual({
      status: 'refused',
      code: 'unknown_tool',
      message: expect.any(String),
      rev: tm.rev,
    })
    release()
    await tick()
    expect(resultOf('w0')).toEqual({ status: 'ok' })
    expect(resultOf('w31')).toEqual({ status: 'ok' })
  })

  it('inbound input is a deep copy: getters run once, later mutation by the sender does not reach the tool', async () => {
    const { tm, agent, resultOf } = page()
    let reads = 0
    const seen: unknown[] = []
    tm.register({
      name: 'echo',
      description: 'd',
      input: z.object({ query: z.string(), list: z.array(z.number()) }),
      hints: { readOnly: true },
      run: async (input) => {
        await tick()
        seen.push(input)
        return ok(input)
      },
    })
    const list = [1, 2]
    const input = {
      get query() {
        reads++
        return 'q'
      },
      list,
    }
    agent.send({ protocol: 1, clientId: CLIENT, type: 'call', id: 'g', tool: 'echo', input })
    await Promise.resolve()
    await Promise.resolve()
    list.push(3)
    await tick()
    await tick()
    expect(reads).toBe(1)
    expect(seen).toEqual([{ query: 'q', list: [1, 2] }])
    expect(resultOf('g')).toEqual({ status: 'ok', data: { query: 'q', list: [1, 2] } })
  })
})

describe('rule 1: clientId filtering', () => {
  it('another page’s string clientId is ignored silently; a missing or non-string clientId is invalid_message', async () => {
    const { tm, agent, results, errors } = page()
    const run = readTool(tm)
    await tick()
    agent.send({
      protocol: 1,
      clientId: 'other-tab',
      type: 'call',
      id: 'a',
      tool: 'search',
      input: { query: 'x' },
    })
    agent.send({ protocol: 1, clientId: 'other-tab', type: 'cancel', id: 'a' })
    agent.send({ protocol: 2, clientId: 'other-tab', id: 'v2' })
    agent.send({ protocol: 1, clientId: 'other-tab', type: 'bogus' })
    await tick()
    expect(errors).toEqual([])
    agent.send({ protocol: 1, type: 'call', id: 'b', tool: 'search', input: { query: 'x' } })
    agent.send({ protocol: 1, clientId: 7, type: 'call', id: 'c', tool: 'search', input: { query: 'x' } })
    await tick()
    expect(results()).toEqual([])
    expect(run).not.toHaveBeenCalled()
    expect(errors).toEqual(['invalid_message', 'invalid_message'])
  })

  it('two pages on one channel: only the addressed page executes and answers', async () => {
    const { transport, agent } = createInPageChannel()
    const a = createTestToolmark({ dev: false })
    const b = createTestToolmark({ dev: false })
    const runA = readTool(a)
    const runB = readTool(b)
    const received: Msg[] = []
    agent.onMessage((m) => received.push(m as Msg))
    a.use(bridge({ transport, clientId: 'page-a' }))
    // The second page shares the agent end: a fan-out transport delivering every inbound message to both.
    const handlers = new Set<(m: unknown) => void>()
    const shared: BridgeTransport = {
      send: (m) => transport.send(m),
      onMessage: (h) => {
        handlers.add(h)
        return () => handlers.delete(h)
      },
    }
    b.use(bridge({ transport: shared, clientId: 'page-b' }))
    transport.onMessage((m) => {
      for (const h of handlers) h(m)
    })
    agent.send({
      protocol: 1,
      clientId: 'page-b',
      type: 'call',
      id: 'x',
      tool: 'search',
      input: { query: 'q' },
    })
    await tick()
    expect(runA).not.toHaveBeenCalled()
    expect(runB).toHaveBeenCalledTimes(1)
    expect(received.filter((m) => m.type === 'result')).toEqual([
      expect.objectContaining({ clientId: 'page-b', id: 'x' }),
    ])
  })
})

describe('rule 2: each id answered once; last 1000 answered ids remembered', () => {
  it('exactly 1000 answered ids are all remembered; the 1001st pushes out the oldest', async () => {
    const { tm, send, results } = page()
    tm.register({ name: 'n', description: 'd', hints: { readOnly: true }, run: () => ok() })
    for (let i = 0; i < 1000; i++) send({ type: 'describe', id: `d${i}`, tool: 'n' })
    await tick()
    expect(results()).toHaveLength(1000)
    send({ type: 'describe', id: 'd0', tool: 'n' })
    send({ type: 'call', id: 'd999', tool: 'n', input: {} })
    await tick()
    expect(results()).toHaveLength(1000)
    send({ type: 'describe', id: 'd1000', tool: 'n' })
    await tick()
    send({ type: 'describe', id: 'd0', tool: 'n' })
    send({ type: 'describe', id: 'd500', tool: 'n' })
    await tick()
    expect(results().filter((r) => r.id === 'd0')).toHaveLength(2)
    expect(results().filter((r) => r.id === 'd500')).toHaveLength(1)
  })

  it('a duplicate of an in-flight call id is ignored (the tool runs once)', async () => {
    const { tm, send, results } = page()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const run = vi.fn(async () => {
      await gate
      return ok()
    })
    tm.register({ name: 'w', description: 'd', hints: { readOnly: true }, run })
    send({ type: 'call', id: 'same', tool: 'w', input: {} })
    await tick()
    send({ type: 'call', id: 'same', tool: 'w', input: {} })
    send({ type: 'describe', id: 'same', tool: 'w' })
    await tick()
    release()
    await tick()
    expect(run).toHaveBeenCalledTimes(1)
    expect(results()).toHaveLength(1)
  })
})

describe('rule 4: protocol other than 1', () => {
  it('answered "unsupported protocol" with a string id and this clientId, whatever the shape', async () => {
    const { agent, resultOf, results, errors } = page()
    agent.send({ protocol: 2, clientId: CLIENT, id: 'v2', type: 'call2', futureField: [1, 2] })
    agent.send({ protocol: 0, clientId: CLIENT, id: 'v0' })
    agent.send({ protocol: '1', clientId: CLIENT, id: 's1', type: 'call', tool: 'x', input: {} })
    await tick()
    const unsupported = { status: 'error', message: 'unsupported protocol' }
    expect(resultOf('v2')).toEqual(unsupported)
    expect(resultOf('v0')).toEqual(unsupported)
    expect(resultOf('s1')).toEqual(unsupported)
    expect(results()[0]).toEqual({
      protocol: 1,
      type: 'result',
      clientId: CLIENT,
      id: 'v2',
      result: unsupported,
    })
    expect(errors).toEqual([])
  })

  it('dropped (never answered) without a string id or without this clientId', async () => {
    const { agent, results, errors } = page()
    agent.send({ protocol: 2, clientId: CLIENT })
    agent.send({ protocol: 2, clientId: CLIENT, id: 5 })
    agent.send({ protocol: 2, id: 'no-client' })
    await tick()
    expect(results()).toEqual([])
    expect(errors).toEqual(['invalid_message', 'invalid_message', 'invalid_message'])
  })
})

describe('rule 8 and inbound limits (exact boundaries)', () => {
  /** A call whose JSON is exactly `bytes` UTF-8 bytes, padded with `fill` (1, 2, 3 or 4 bytes each). */
  function callOfSize(bytes: number, id: string, fill = 'x'): Msg {
    const msg: Msg = { protocol: 1, clientId: CLIENT, type: 'call', id, tool: 'sink', input: { pad: '' } }
    const base = Buffer.byteLength(JSON.stringify(msg))
    const unit = Buffer.byteLength(JSON.stringify(fill)) - 2 // bytes of one fill character inside JSON
    const room = bytes - base
    const pad = fill.repeat(Math.floor(room / unit)) + 'y'.repeat(room % unit)
    const out = { ...msg, input: { pad } }
    expect(Buffer.byteLength(JSON.stringify(out))).toBe(bytes)
    return out
  }

  const sinkPage = (maxMessageBytes?: number) => {
    const p = page({}, maxMessageBytes === undefined ? {} : { maxMessageBytes })
    const run = vi.fn(() => ok())
    p.tm.register({ name: 'sink', description: 'd', hints: { readOnly: true }, run })
    return { ...p, run }
  }

  it('default limit: exactly 1048576 UTF-8 bytes is accepted, 1048577 dropped with invalid_message', async () => {
    const { agent, resultOf, errors, run } = sinkPage()
    agent.send(callOfSize(1_048_576, 'fits'))
    agent.send(callOfSize(1_048_577, 'over'))
    await tick()
    expect(resultOf('fits')).toEqual({ status: 'ok' })
    expect(resultOf('over')).toBeUndefined()
    expect(run).toHaveBeenCalledTimes(1)
    expect(errors).toEqual(['invalid_message'])
  })

  it('size is measured in UTF-8 bytes of the JSON, not UTF-16 units (é = 2, € = 3, emoji = 4 bytes)', async () => {
    const { agent, resultOf, errors } = sinkPage(4096)
    agent.send(callOfSize(4096, 'e2', 'é'))
    agent.send(callOfSize(4097, 'e2x', 'é'))
    agent.send(callOfSize(4096, 'e3', '€'))
    agent.send(callOfSize(4097, 'e3x', '€'))
    agent.send(callOfSize(4096, 'e4', '😀'))
    agent.send(callOfSize(4097, 'e4x', '😀'))
    agent.send(callOfSize(4096, 'esc', '\n')) // JSON escapes count: "\n" is 2 bytes
    agent.send(callOfSize(4097, 'escx', '\n'))
    await tick()
    for (const id of ['e2', 'e3', 'e4', 'esc']) expect(resultOf(id)).toEqual({ status: 'ok' })
    for (const id of ['e2x', 'e3x', 'e4x', 'escx']) expect(resultOf(id)).toBeUndefined()
    expect(errors).toEqual(Array(4).fill('invalid_message'))
  })

  it('maxMessageBytes option: exactly the limit accepted, one byte over dropped', async () => {
    const { agent, resultOf, errors } = sinkPage(300)
    agent.send(callOfSize(300, 'ok300'))
    agent.send(callOfSize(301, 'no301'))
    await tick()
    expect(resultOf('ok300')).toEqual({ status: 'ok' })
    expect(resultOf('no301')).toBeUndefined()
    expect(errors).toEqual(['invalid_message'])
  })

  it('nesting depth: 64 levels (the root object is depth 1) accepted, 65 dropped; arrays count too', async () => {
    const { agent, resultOf, errors, run } = sinkPage()
    const nest = (depth: number, kind: 'object' | 'array'): unknown => {
      let v: unknown = kind === 'object' ? {} : []
      for (let i = 1; i < depth; i++) v = kind === 'object' ? { n: v } : [v]
      return v
    }
    // message (1) → input (2) → 62 more levels → total 64.
    const at = (depth: number, id: string, kind: 'object' | 'array'): Msg => ({
      protocol: 1,
      clientId: CLIENT,
      type: 'call',
      id,
      tool: 'sink',
      input: { deep: nest(depth - 2, kind) },
    })
    agent.send(at(64, 'o64', 'object'))
    agent.send(at(65, 'o65', 'object'))
    agent.send(at(64, 'a64', 'array'))
    agent.send(at(65, 'a65', 'array'))
    await tick()
    expect(resultOf('o64')).toEqual({ status: 'ok' })
    expect(resultOf('a64')).toEqual({ status: 'ok' })
    expect(resultOf('o65')).toBeUndefined()
    expect(resultOf('a65')).toBeUndefined()
    expect(run).toHaveBeenCalledTimes(2)
    expect(errors).toEqual(['invalid_message', 'invalid_message'])
  })

  it('shared references (a DAG of 2^60 logical leaves) are bounded: dropped promptly, nothing runs', async () => {
    const { agent, results, errors, run } = sinkPage()
    let dag: unknown = 'leaf'
    for (let i = 0; i < 60; i++) dag = [dag, dag]
    agent.send({ protocol: 1, clientId: CLIENT, type: 'call', id: 'dag', tool: 'sink', input: { dag } })
    await tick()
    expect(results()).toEqual([])
    expect(run).not.toHaveBeenCalled()
    expect(errors).toEqual(['invalid_message'])
  })

  it('a Proxy or class instance in the input arrives as plain data (no traps, no prototype survive)', async () => {
    const { tm, agent, resultOf } = page()
    const seen: unknown[] = []
    tm.register({
      name: 'probe',
      description: 'd',
      hints: { readOnly: true },
      run: (input) => {
        seen.push(input)
        return ok()
      },
    })
    let traps = 0
    const proxied = new Proxy(
      { a: 1 },
      {
        get(target, key, receiver) {
          traps++
          return Reflect.get(target, key, receiver)
        },
      },
    )
    class Secret {
      x = 1
      leak(): string {
        return 'method'
      }
    }
    agent.send({
      protocol: 1,
      clientId: CLIENT,
      type: 'call',
      id: 'p',
      tool: 'probe',
      input: { proxied, inst: new Secret() },
    })
    await tick()
    const trapsAfterCopy = traps
    expect(resultOf('p')).toEqual({ status: 'ok' })
    const input = seen[0] as { proxied: object; inst: object }
    expect(input).toEqual({ proxied: { a: 1 }, inst: { x: 1 } })
    expect(Object.getPrototypeOf(input.inst)).toBe(Object.prototype)
    expect((input as unknown as { inst: { leak?: unknown } }).inst.leak).toBeUndefined()
    expect(traps).toBe(trapsAfterCopy)
    expect(traps).toBe(1)
  })

  it('an oversize or too-deep message for this page is dropped even if it names an unsupported protocol', async () => {
    const { agent, results, errors } = sinkPage(200)
    agent.send({ protocol: 2, clientId: CLIENT, id: 'big', pad: 'x'.repeat(500) })
    await tick()
    expect(results()).toEqual([])
    expect(errors).toEqual(['invalid_message'])
  })

  it('malformed messages are dropped with invalid_message and never answered', async () => {
    const { agent, send, results, errors } = sinkPage()
    send({ type: 'call', id: 'no-input', tool: 'sink' })
    send({ type: 'call', id: 'array-input', tool: 'sink', input: [] })
    send({ type: 'call', id: 'extra', tool: 'sink', input: {}, extra: true })
    send({ type: 'call', id: '', tool: 'sink', input: {} })
    send({ type: 'call', id: 'bad-rev', tool: 'sink', input: {}, rev: -1 })
    send({ type: 'call', id: 'bad-tool', tool: 'has space', input: {} })
    send({ type: 'result', id: 'wrong-direction', result: { status: 'ok' } })
    send({ type: 'confirmed', confirmId: 'c', result: { status: 'ok' } })
    agent.send(null)
    agent.send([1, 2])
    agent.send('{"protocol":1}')
    await tick()
    expect(results()).toEqual([])
    expect(errors).toEqual(Array(11).fill('invalid_message'))
  })
})

describe('cancel', () => {
  it('aborts the in-flight call; its own result follows; cancel itself is never answered', async () => {
    const { tm, send, received, errors } = page()
    let signal: AbortSignal | undefined
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((_resolve, reject) => {
          signal = ctx.signal
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))
        }),
    })
    await tick()
    send({ type: 'call', id: 'long', tool: 'slow', input: {} })
    await tick()
    send({ type: 'cancel', id: 'long' })
    send({ type: 'cancel', id: 'long' })
    send({ type: 'cancel', id: 'unknown-id' })
    await tick()
    expect(signal?.aborted).toBe(true)
    const afterAttach = received.filter((m) => m.type !== 'manifest')
    expect(afterAttach).toEqual([
      {
        protocol: 1,
        type: 'result',
        clientId: CLIENT,
        id: 'long',
        result: { status: 'cancelled', by: 'signal' },
      },
    ])
    expect(errors).toEqual([])
  })

  it('a queued call cancelled before its turn never runs and is answered cancelled signal', async () => {
    const { tm, send, resultOf } = page()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const run = vi.fn(async () => {
      await gate
      return ok()
    })
    tm.register({ name: 'w', description: 'd', hints: { readOnly: true }, run })
    send({ type: 'call', id: 'first', tool: 'w', input: {} })
    send({ type: 'call', id: 'second', tool: 'w', input: {} })
    await tick()
    send({ type: 'cancel', id: 'second' })
    await tick()
    expect(resultOf('second')).toEqual({ status: 'cancelled', by: 'signal' })
    release()
    await tick()
    expect(resultOf('first')).toEqual({ status: 'ok' })
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('a tool that finishes cleanly on abort keeps its own result', async () => {
    const { tm, send, resultOf } = page()
    tm.register({
      name: 'stoppable',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve(ok('partial'))),
        ),
    })
    send({ type: 'call', id: 's', tool: 'stoppable', input: {} })
    await tick()
    send({ type: 'cancel', id: 's' })
    await tick()
    expect(resultOf('s')).toEqual({ status: 'ok', data: 'partial' })
  })

  it('cancel of a call answered needs_confirmation does nothing: the confirmation stays approvable', async () => {
    const { tm, send, resultOf, received } = page()
    const run = createTool(tm)
    send({ type: 'call', id: 'c', tool: 'create', input: { name: 'A' } })
    await tick()
    const { confirmId } = resultOf('c') as { confirmId: string }
    send({ type: 'cancel', id: 'c' })
    await tick()
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual(ok({ created: 'A' }))
    await tick()
    expect(run).toHaveBeenCalledTimes(1)
    expect(received.filter((m) => m.type === 'confirmed')).toHaveLength(1)
  })
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

describe('results cross the bridge as detached JSON (protocol: Tool results)', () => {
  it('toJSON honoured (Date → ISO), undefined dropped, NaN/Map/Set/BigInt/cycles → "Result not serializable" + transport_failed', async () => {
    const { tm, send, resultOf, errors } = page()
    const cyc: Record<string, unknown> = {}
    cyc.self = cyc
    const tools: Record<string, unknown> = {
      date: { at: new Date('2026-01-02T03:04:05.006Z'), none: undefined },
      empty: undefined,
      big: { n: 1n },
      nan: { n: Number.NaN },
      map: { m: new Map() },
      set: { s: new Set() },
      cycle: cyc,
    }
    for (const [name, data] of Object.entries(tools)) {
      tm.register({ name, description: 'd', hints: { readOnly: true }, run: () => ok(data) })
      send({ type: 'call', id: name, tool: name, input: {} })
    }
    await tick()
    expect(resultOf('date')).toEqual({ status: 'ok', data: { at: '2026-01-02T03:04:05.006Z' } })
    expect(resultOf('empty')).toEqual({ status: 'ok' })
    for (const name of ['big', 'nan', 'map', 'set', 'cycle']) {
      expect(resultOf(name)).toEqual({ status: 'error', message: 'Result not serializable' })
    }
    expect(errors).toEqual(Array(5).fill('transport_failed'))
  })

  it('a throwing tool is error "Tool failed" with no details; details go to the page-side event only', async () => {
    const { tm, send, resultOf, errors } = page()
    tm.register({
      name: 'boom',
      description: 'd',
      hints: { readOnly: true },
      run: () => {
        throw new Error('db password is hunter2')
      },
    })
    send({ type: 'call', id: 'b', tool: 'boom', input: {} })
    await tick()
    expect(resultOf('b')).toEqual({ status: 'error', message: 'Tool failed' })
    expect(errors).toEqual(['tool_threw'])
  })

  it('the sent result is a copy: mutating the tool’s data afterwards does not change what was sent', async () => {
    const { tm, send, resultOf } = page()
    const data = { items: [{ n: 1 }] }
    tm.register({ name: 'd', description: 'd', hints: { readOnly: true }, run: () => ok(data) })
    send({ type: 'call', id: 'x', tool: 'd', input: {} })
    await tick()
    data.items[0]!.n = 2
    expect(resultOf('x')).toEqual({ status: 'ok', data: { items: [{ n: 1 }] } })
    expect((resultOf('x') as { data: unknown }).data).not.toBe(data)
  })
})

describe('transport failures and disposal', () => {
  it('a synchronously throwing send is transport_failed; the bridge keeps working', async () => {
    const tm = createTestToolmark({ dev: false })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    let handler: (m: unknown) => void = () => {}
    const sent: Msg[] = []
    let failNext = true
    tm.use(
      bridge({
        clientId: CLIENT,
        transport: {
          send: (m) => {
            if (failNext) {
              failNext = false
              throw new Error('socket closed')
            }
            sent.push(m as Msg)
          },
          onMessage: (h) => {
            handler = h
            return () => {}
          },
        },
      }),
    )
    expect(errors).toEqual(['transport_failed'])
    readTool(tm)
    handler({ protocol: 1, clientId: CLIENT, type: 'call', id: 'x', tool: 'search', input: { query: 'q' } })
    await tick()
    expect(sent.find((m) => m.type === 'result')).toMatchObject({ id: 'x', result: { status: 'ok' } })
  })

  it('dispose: unsubscribes, aborts in-flight calls without answering them afterwards, closes the transport once', async () => {
    const tm = createTestToolmark({ dev: false })
    const { transport, agent } = createInPageChannel()
    const close = vi.spyOn(transport, 'close')
    const sent: Msg[] = []
    const send = vi.spyOn(transport, 'send')
    agent.onMessage((m) => sent.push(m as Msg))
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
    const before = send.mock.calls.length
    dispose()
    dispose()
    await tick()
    tm.register({ name: 'later', description: 'd', hints: { readOnly: true }, run: () => ok() })
    await tick()
    expect(aborted).toBe(true)
    expect(close).toHaveBeenCalledTimes(1)
    expect(send.mock.calls.length).toBe(before)
  })

  it('SSR: on the server tm.use(bridge) is inert (no manifest, no subscription)', async () => {
    environment.setIsServer(true)
    const tm = createToolmark()
    const onMessage = vi.fn(() => () => {})
    const send = vi.fn()
    tm.use(bridge({ clientId: CLIENT, transport: { send, onMessage } }))
    await tick()
    expect(send).not.toHaveBeenCalled()
    expect(onMessage).not.toHaveBeenCalled()
  })
})
