import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { type ConsumerHost, ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import * as z from 'zod'
import { bridge } from '../bridge.ts'
import { MAX_FRAME_LENGTH, type WebSocketTransport, websocketTransport } from '../websocket.ts'
import { until } from './helpers.ts'

/** A real `ws` server on loopback that can refuse handshakes and records what it receives. */
interface TestServer {
  url: string
  accept: boolean
  connections: WebSocket[]
  frames: string[]
  wss: WebSocketServer
}

let server: TestServer
const sockets: WebSocket[] = []
const transports: WebSocketTransport[] = []

/** The `ws` client, counting every socket the transport opens. */
class CountingWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols)
    sockets.push(this)
  }
}

function start(options: Parameters<typeof websocketTransport>[0]): WebSocketTransport {
  const transport = websocketTransport({ WebSocket: CountingWebSocket, ...options })
  transports.push(transport)
  return transport
}

/** Resolves once `socket` is closed (its transport listeners have already run by then). */
async function closed(socket: WebSocket | undefined): Promise<void> {
  if (!socket) throw new Error('no socket')
  if (socket.readyState === WebSocket.CLOSED) return
  // Not events.once(): it would reject on the 'error' event that precedes a failed handshake's close.
  await new Promise((resolve) => socket.once('close', resolve))
}

async function nextConnection(): Promise<WebSocket> {
  const [ws] = (await once(server.wss, 'connection')) as [WebSocket]
  return ws
}

const result = (id: string) => ({
  protocol: 1,
  type: 'result',
  clientId: 'c',
  id,
  result: { status: 'ok' },
})
const manifest = (rev: number) => ({ protocol: 1, type: 'manifest', clientId: 'c', rev, tools: [] })
const changed = (rev: number) => ({ protocol: 1, type: 'changed', clientId: 'c', rev })
const confirmed = (confirmId: string) => ({
  protocol: 1,
  type: 'confirmed',
  clientId: 'c',
  confirmId,
  result: { status: 'cancelled', by: 'operator' },
})
const label = (frame: string): string => {
  const m = JSON.parse(frame) as { type: string; id?: string; rev?: number; confirmId?: string }
  return m.id ?? m.confirmId ?? `${m.type}${m.rev}`
}

beforeAll(async () => {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: () => server.accept,
  })
  await once(wss, 'listening')
  server = {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    accept: true,
    connections: [],
    frames: [],
    wss,
  }
  wss.on('connection', (ws) => {
    server.connections.push(ws)
    ws.on('message', (data, isBinary) => {
      if (!isBinary) server.frames.push(data.toString())
    })
  })
})

afterAll(async () => {
  for (const ws of server.wss.clients) ws.terminate()
  await new Promise((resolve) => server.wss.close(resolve))
})

beforeEach(() => {
  server.accept = true
  server.connections.length = 0
  server.frames.length = 0
  sockets.length = 0
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
})

afterEach(() => {
  for (const transport of transports.splice(0)) transport.close()
  vi.useRealTimers()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

describe('websocketTransport', () => {
  it('carries JSON text frames both ways', async () => {
    const transport = start({ url: server.url })
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    const ws = await nextConnection()
    await until(() => sockets[0]?.readyState === WebSocket.OPEN)

    await transport.send(result('r1'))
    ws.send(JSON.stringify({ protocol: 1, type: 'call', clientId: 'c', id: 'x', tool: 't', input: {} }))

    await until(() => server.frames.length === 1 && inbound.length === 1)
    expect(JSON.parse(server.frames[0]!)).toEqual(result('r1'))
    expect(inbound).toEqual([{ protocol: 1, type: 'call', clientId: 'c', id: 'x', tool: 't', input: {} }])
  })

  it('reports its connection state, and the bridge publishes it with its clientId as its status', async () => {
    const tm = createTestToolmark()
    let host!: ConsumerHost
    tm.use((h) => {
      host = h
      return undefined
    })
    const transport = start({ url: server.url })
    const states: string[] = []
    transport.onState((s) => states.push(s))
    const dispose = tm.use(bridge({ transport, clientId: 'page-1' }))
    expect(host.statuses().bridge).toEqual({ state: 'connecting', clientId: 'page-1' })
    const first = await nextConnection()
    await until(() => states.includes('open'))
    expect(host.statuses().bridge).toEqual({ state: 'open', clientId: 'page-1' })
    first.close(1012, 'restart')
    await closed(sockets[0])
    expect(host.statuses().bridge).toEqual({ state: 'connecting', clientId: 'page-1' })
    dispose()
    expect(states).toEqual(['connecting', 'open', 'connecting', 'closed'])
    expect(host.statuses().bridge).toBeUndefined()
  })

  it('uses the global WebSocket by default and throws a TypeError when there is none', async () => {
    vi.stubGlobal('WebSocket', undefined)
    expect(() => websocketTransport({ url: server.url })).toThrow(TypeError)
    vi.stubGlobal('WebSocket', CountingWebSocket)
    transports.push(websocketTransport({ url: server.url }))
    await nextConnection()
    expect(sockets).toHaveLength(1)
  })

  it('rejects a maxDelayMs that is not a finite number >= 0', () => {
    expect(() => start({ url: server.url, maxDelayMs: Number.NaN })).toThrow(TypeError)
    expect(() => start({ url: server.url, maxDelayMs: Number.POSITIVE_INFINITY })).toThrow(TypeError)
    expect(() => start({ url: server.url, maxDelayMs: -1 })).toThrow(TypeError)
    expect(sockets).toHaveLength(0)
  })

  it('reconnects after a server-side close and flushes what was sent meanwhile, in order', async () => {
    const transport = start({ url: server.url })
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    const first = await nextConnection()
    await until(() => sockets[0]?.readyState === WebSocket.OPEN)

    first.close(1012, 'restart')
    await closed(sockets[0])
    await transport.send(result('during-outage-1'))
    await transport.send(result('during-outage-2'))
    expect(server.frames).toEqual([])

    const reconnected = nextConnection()
    vi.advanceTimersByTime(500)
    const second = await reconnected
    await until(() => server.frames.length === 2)
    await transport.send(result('after'))
    second.send(JSON.stringify({ protocol: 1, type: 'cancel', clientId: 'c', id: 'x' }))
    await until(() => server.frames.length === 3 && inbound.length === 1)

    expect(server.frames.map(label)).toEqual(['during-outage-1', 'during-outage-2', 'after'])
    expect(inbound).toEqual([{ protocol: 1, type: 'cancel', clientId: 'c', id: 'x' }])
    expect(sockets).toHaveLength(2)
  })

  it('backs off 500, 1000, 2000 ms… capped by maxDelayMs, and resets after a successful open', async () => {
    server.accept = false // handshakes fail with HTTP 401: the socket never opens
    const errors: unknown[] = []
    const transport = start({ url: server.url, maxDelayMs: 3000 })
    transport.onError((e) => errors.push(e))
    await closed(sockets[0])

    for (const delay of [500, 1000, 2000, 3000, 3000]) {
      const attempts = sockets.length
      vi.advanceTimersByTime(delay - 1)
      expect(sockets).toHaveLength(attempts)
      vi.advanceTimersByTime(1)
      expect(sockets).toHaveLength(attempts + 1)
      await closed(sockets.at(-1))
    }
    expect(errors.length).toBeGreaterThanOrEqual(6) // one socket error per failed attempt

    server.accept = true
    const opened = nextConnection()
    vi.advanceTimersByTime(3000)
    const ws = await opened
    await until(() => sockets.at(-1)?.readyState === WebSocket.OPEN)
    ws.terminate()
    await closed(sockets.at(-1))

    const attempts = sockets.length
    vi.advanceTimersByTime(499)
    expect(sockets).toHaveLength(attempts)
    vi.advanceTimersByTime(1)
    expect(sockets).toHaveLength(attempts + 1)
  })

  /** Sends `messages` while the server refuses, then lets it in; returns the 100 flushed frames and the reports. */
  async function bufferThenFlush(messages: unknown[]): Promise<{ frames: string[]; reports: string[] }> {
    const errors: Error[] = []
    server.accept = false
    const transport = start({ url: server.url })
    transport.onError((e) => errors.push(e as Error))
    for (const message of messages) await transport.send(message)
    await closed(sockets[0])
    server.accept = true
    vi.advanceTimersByTime(500)
    await until(() => server.frames.length === 100)
    await transport.send(result('after-flush'))
    await until(() => server.frames.length === 101)
    const reports = errors.filter((e) => /buffer full/.test(e.message)).map((e) => e.message)
    return { frames: server.frames.map(label), reports }
  }
  const results = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => result(`r${from + i}`))
  const labels = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `r${from + i}`)

  it('buffers 100 messages and flushes them in order; a superseded manifest/changed is evicted first', async () => {
    // r97 is the 101st: changed1 goes (changed2 supersedes it), not manifest0 (no later manifest).
    const sent = [manifest(0), ...results(0, 96), changed(1), changed(2), result('r97')]
    const { frames, reports } = await bufferThenFlush(sent)
    expect(frames).toEqual(['manifest0', ...labels(0, 96), 'changed2', 'r97', 'after-flush'])
    expect(reports).toEqual([])
  })

  it('then evicts the oldest other non-terminal message, never a result first', async () => {
    // r98 is the 101st: nothing is superseded (a changed does not supersede a manifest), so the
    // oldest non-terminal message, manifest0, goes, although r0 is older.
    const sent = [result('r0'), manifest(0), ...results(1, 97), changed(1), result('r98')]
    const { frames, reports } = await bufferThenFlush(sent)
    expect(frames).toEqual([...labels(0, 97), 'changed1', 'r98', 'after-flush'])
    expect(reports).toEqual([])
  })

  it('drops an incoming manifest/changed rather than evict a buffered result', async () => {
    const sent = [confirmed('k0'), ...results(0, 98), changed(1)]
    const { frames, reports } = await bufferThenFlush(sent)
    expect(frames).toEqual(['k0', ...labels(0, 98), 'after-flush'])
    expect(reports).toEqual([])
  })

  it('evicts a result/confirmed only when all 100 are results/confirmed, and reports each one', async () => {
    const sent = [confirmed('k0'), ...results(0, 98), result('r99'), confirmed('k1')]
    const { frames, reports } = await bufferThenFlush(sent)
    expect(frames).toEqual([...labels(1, 99), 'k1', 'after-flush'])
    expect(reports).toEqual([
      'websocketTransport: outgoing buffer full (100 messages while disconnected); dropped a buffered "confirmed" message (confirmId k0)',
      'websocketTransport: outgoing buffer full (100 messages while disconnected); dropped a buffered "result" message (id r0)',
    ])
  })

  it('stops reconnecting after a terminal close code and rejects later sends', async () => {
    const errors: Error[] = []
    const transport = start({ url: server.url, terminalCloseCodes: [4001] })
    transport.onError((e) => errors.push(e as Error))
    const ws = await nextConnection()
    await until(() => sockets[0]?.readyState === WebSocket.OPEN)

    ws.close(4001, 'unauthorized')
    await closed(sockets[0])
    vi.advanceTimersByTime(120_000)
    await new Promise((resolve) => setImmediate(resolve))

    expect(sockets).toHaveLength(1)
    expect(errors.map((e) => e.message)).toEqual([
      'websocketTransport: closed with terminal code 4001: unauthorized',
    ])
    expect(() => transport.send(result('x'))).toThrow(/stopped/)
  })

  it('reconnects after a close code that is not terminal', async () => {
    start({ url: server.url, terminalCloseCodes: [4001] })
    const ws = await nextConnection()
    ws.close(4002, 'other')
    await closed(sockets[0])
    vi.advanceTimersByTime(500)
    await nextConnection()
    expect(sockets).toHaveLength(2)
  })

  it('awaits an async onOpen (e.g. authentication) before flushing the buffer', async () => {
    server.wss.once('connection', (ws) => {
      ws.once('message', () => ws.send('{"authenticated":true}'))
    })
    const inbound: unknown[] = []
    const transport = start({
      url: server.url,
      onOpen: (socket) =>
        new Promise<void>((resolve) => {
          socket.addEventListener('message', () => resolve())
          socket.send(JSON.stringify({ auth: 'token' }))
        }),
    })
    transport.onMessage((m) => inbound.push(m))
    await transport.send(manifest(0))
    await until(() => server.frames.length === 2)

    expect(server.frames.map((f) => JSON.parse(f))).toEqual([{ auth: 'token' }, manifest(0)])
    expect(inbound).toEqual([]) // the handshake reply is onOpen's, not the bridge's
  })

  it('stops, without flushing, when onOpen rejects', async () => {
    const errors: Error[] = []
    const transport = start({
      url: server.url,
      onOpen: async () => {
        throw new Error('no token')
      },
    })
    transport.onError((e) => errors.push(e as Error))
    await transport.send(manifest(0))
    const ws = await nextConnection()
    await once(ws, 'close')
    vi.advanceTimersByTime(120_000)
    await new Promise((resolve) => setImmediate(resolve))

    expect(sockets).toHaveLength(1)
    expect(server.frames).toEqual([])
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toMatch(/onOpen rejected; 1 buffered message\(s\) dropped/)
    expect(errors[0]!.cause).toMatchObject({ cause: { message: 'no token' } })
    expect(() => transport.send(manifest(1))).toThrow(/stopped/)
  })

  it('stops when onOpen throws synchronously', async () => {
    const errors: Error[] = []
    const transport = start({
      url: server.url,
      onOpen: () => {
        throw new Error('sync failure')
      },
    })
    transport.onError((e) => errors.push(e as Error))
    const ws = await nextConnection()
    await once(ws, 'close')
    vi.advanceTimersByTime(120_000)
    await new Promise((resolve) => setImmediate(resolve))
    expect(sockets).toHaveLength(1)
    expect(errors.map((e) => e.message)).toEqual(['websocketTransport: onOpen failed'])
  })

  it('throws at construction for a URL the WebSocket constructor rejects', () => {
    expect(() => start({ url: 'not a url' })).toThrow()
  })

  it('drops binary, oversize and non-JSON frames unparsed, and parses every other frame exactly once', async () => {
    const parse = vi.spyOn(JSON, 'parse')
    const transport = start({ url: server.url })
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    const ws = await nextConnection()
    await until(() => sockets[0]?.readyState === WebSocket.OPEN)

    const atLimit = `"${'a'.repeat(MAX_FRAME_LENGTH - 2)}"`
    const overLimit = `"${'a'.repeat(MAX_FRAME_LENGTH - 1)}"`
    const frames = {
      binary: Buffer.from('{"protocol":1,"type":"cancel"}'),
      overLimit,
      nonJson: '{"protocol":1,',
      atLimit,
      last: JSON.stringify({ protocol: 1, type: 'cancel', clientId: 'c', id: 'last' }),
    }
    expect(overLimit).toHaveLength(MAX_FRAME_LENGTH + 1)
    expect(atLimit).toHaveLength(MAX_FRAME_LENGTH)
    for (const frame of Object.values(frames)) ws.send(frame)
    await until(() => inbound.length === 2)

    expect(typeof inbound[0]).toBe('string')
    expect(inbound[0]).toHaveLength(MAX_FRAME_LENGTH - 2)
    expect(inbound[1]).toEqual({ protocol: 1, type: 'cancel', clientId: 'c', id: 'last' })
    const parsed = (frame: unknown) => parse.mock.calls.filter(([text]) => text === frame).length
    expect(parsed(frames.overLimit)).toBe(0)
    expect(parsed(frames.nonJson)).toBe(1)
    expect(parsed(frames.atLimit)).toBe(1)
    expect(parsed(frames.last)).toBe(1)
  })

  it('reports a handler that throws and keeps the socket alive', async () => {
    const boom = new Error('handler bug')
    const errors: unknown[] = []
    const transport = start({ url: server.url })
    transport.onError((e) => errors.push(e))
    const inbound: unknown[] = []
    transport.onMessage(() => {
      throw boom
    })
    transport.onMessage((m) => inbound.push(m))
    const ws = await nextConnection()
    await until(() => sockets[0]?.readyState === WebSocket.OPEN)
    ws.send('{"n":1}')
    ws.send('{"n":2}')
    await until(() => inbound.length === 2)
    expect(errors).toEqual([boom, boom])
  })

  it('close() closes the socket, never reconnects and makes send throw', async () => {
    const transport = start({ url: server.url })
    const handler = vi.fn()
    transport.onMessage(handler)
    const ws = await nextConnection()
    await until(() => sockets[0]?.readyState === WebSocket.OPEN)

    const [code] = (await Promise.all([once(ws, 'close'), transport.close()]))[0] as [number]
    expect(code).toBe(1000)
    transport.close()
    vi.advanceTimersByTime(120_000)
    await new Promise((resolve) => setImmediate(resolve))
    expect(sockets).toHaveLength(1)
    expect(() => transport.send(result('x'))).toThrow(/stopped/)
    expect(handler).not.toHaveBeenCalled()
  })

  it('close() while waiting to reconnect cancels the pending attempt', async () => {
    const transport = start({ url: server.url })
    const ws = await nextConnection()
    ws.terminate()
    await closed(sockets[0])
    transport.close()
    vi.advanceTimersByTime(120_000)
    await new Promise((resolve) => setImmediate(resolve))
    expect(sockets).toHaveLength(1)
  })

  it('carries the bridge: manifest on attach, a call from the server answered by one result', async () => {
    vi.useRealTimers() // the registry schedules its own timers
    const tm = createTestToolmark({ dev: false })
    tm.register({
      name: 'search',
      description: 'Search',
      input: z.object({ query: z.string() }),
      hints: { readOnly: true },
      run: ({ query }) => ok({ query }),
    })
    const transport = start({ url: server.url })
    const dispose = tm.use(bridge({ transport }))
    const ws = await nextConnection()
    const frames = () => server.frames.map((f) => JSON.parse(f) as Record<string, unknown>)
    await until(() => frames().some((m) => m.type === 'manifest'))
    const manifest = frames().find((m) => m.type === 'manifest')!
    expect(manifest).toMatchObject({ protocol: 1, tools: [{ name: 'search' }] })

    const clientId = manifest.clientId
    ws.send(
      JSON.stringify({
        protocol: 1,
        type: 'call',
        clientId,
        id: 'c1',
        tool: 'search',
        input: { query: 'q' },
      }),
    )
    await until(() => frames().some((m) => m.type === 'result'))
    expect(frames().filter((m) => m.type === 'result')).toEqual([
      { protocol: 1, type: 'result', clientId, id: 'c1', result: { status: 'ok', data: { query: 'q' } } },
    ])
    dispose()
  })
})
