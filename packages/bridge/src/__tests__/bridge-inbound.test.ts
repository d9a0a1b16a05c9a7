/**
 * Inbound messages (docs/protocol/v1.md): clientId filtering, each id answered once, the protocol
 * version, and the size and depth limits at their exact boundaries.
 */

import { ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { createTestToolmark } from '@toolmark/core/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import type { BridgeTransport } from '../transport.ts'
import { CLIENT, type Msg, page, readTool, tick } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
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
