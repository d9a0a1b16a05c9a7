import { describe, expect, it, vi } from 'vitest'
import { createInPageChannel } from '../in-page.ts'

const call = { protocol: 1, type: 'call', clientId: 'c1', id: 'i1', tool: 'a.b', input: {} }
const result = { protocol: 1, type: 'result', clientId: 'c1', id: 'i1', result: { status: 'ok' } }

describe('createInPageChannel', () => {
  it('carries messages both ways, passing the objects as they are', async () => {
    const { transport, agent } = createInPageChannel()
    const toPage: unknown[] = []
    const toAgent: unknown[] = []
    transport.onMessage((m) => toPage.push(m))
    agent.onMessage((m) => toAgent.push(m))

    agent.send(call)
    void transport.send(result)
    await Promise.resolve()

    expect(toPage).toHaveLength(1)
    expect(toPage[0]).toBe(call)
    expect(toAgent).toHaveLength(1)
    expect(toAgent[0]).toBe(result)
  })

  it('delivers asynchronously and in order, never inside send()', async () => {
    const { transport, agent } = createInPageChannel()
    const seen: string[] = []
    transport.onMessage((m) => seen.push((m as { id: string }).id))

    agent.send({ ...call, id: 'first' })
    agent.send({ ...call, id: 'second' })
    expect(seen).toEqual([])

    await Promise.resolve()
    expect(seen).toEqual(['first', 'second'])
  })

  it('stops delivering on unsubscribe', async () => {
    const { transport, agent } = createInPageChannel()
    const handler = vi.fn()
    const off = transport.onMessage(handler)
    off()
    agent.send(call)
    await Promise.resolve()
    expect(handler).not.toHaveBeenCalled()
  })

  it('close() from either end drops queued messages and makes send throw', async () => {
    const { transport, agent } = createInPageChannel()
    const toPage = vi.fn()
    const toAgent = vi.fn()
    transport.onMessage(toPage)
    agent.onMessage(toAgent)

    agent.send(call)
    void transport.send(result)
    transport.close()
    await Promise.resolve()
    expect(toPage).not.toHaveBeenCalled()
    expect(toAgent).not.toHaveBeenCalled()
    expect(() => agent.send(call)).toThrow(/closed/)
    expect(() => transport.send(result)).toThrow(/closed/)

    const other = createInPageChannel()
    other.agent.close()
    other.agent.close()
    expect(() => other.transport.send(result)).toThrow(/closed/)
  })

  it('reports a page handler that throws through onError and keeps delivering', async () => {
    const { transport, agent } = createInPageChannel()
    const boom = new Error('boom')
    const errors: unknown[] = []
    const seen: unknown[] = []
    transport.onError((e) => errors.push(e))
    transport.onMessage(() => {
      throw boom
    })
    transport.onMessage((m) => seen.push(m))

    agent.send(call)
    await Promise.resolve()
    expect(errors).toEqual([boom])
    expect(seen).toEqual([call])
  })
})
