/**
 * Calls and describe over the bridge, and results that cross it as detached JSON.
 */

import { ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { CLIENT, createTool, page, tick } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
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

  it('a tool whose callers leave out inapp: not in the manifest, describe and call refused unknown_tool', async () => {
    const { tm, send, resultOf, received } = page()
    const runs: string[] = []
    tm.register({
      name: 'desk',
      description: 'd',
      hints: { readOnly: true },
      callers: ['mcp'],
      run: () => {
        runs.push('desk')
        return ok()
      },
    })
    await tick()
    const manifest = received.filter((m) => m.type === 'manifest').at(-1) as { tools: { name: string }[] }
    expect(manifest.tools.map((t) => t.name)).toEqual([])
    send({ type: 'describe', id: 'd', tool: 'desk' })
    send({ type: 'call', id: 'c', tool: 'desk', input: {} })
    await tick()
    const expected = { status: 'refused', code: 'unknown_tool', message: expect.any(String), rev: tm.rev }
    expect([resultOf('d'), resultOf('c')]).toEqual([expected, expected])
    expect(runs).toEqual([])
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
