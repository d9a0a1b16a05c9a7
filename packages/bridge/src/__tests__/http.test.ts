import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { EventSource } from 'eventsource'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { bridge } from '../bridge.ts'
import {
  type HttpTransport,
  httpTransport,
  MAX_EVENT_LENGTH,
  MAX_RETRIES,
  RETRYABLE_HEADER,
  STREAM_HEADER,
} from '../http.ts'
import { until } from './helpers.ts'

/**
 * A real SSE + POST server on loopback, shaped like the reference agent server's: one page connection
 * (`stream`) with numbered events kept for replay, resumed from `Last-Event-ID`.
 */
interface TestServer {
  base: string
  http: Server
  /** Status of the next stream requests (200 serves the stream). */
  streamStatus: number
  /** Status of the next POSTs. */
  postStatus: number
  /** Statuses (with the retryable marker when `retryable`) of the next POSTs, before `postStatus`. */
  postAnswers: { status: number; retryable?: boolean }[]
  /** When true, a resumed stream replays every kept event, ignoring `Last-Event-ID` (a buggy server). */
  replayAll: boolean
  stream: string
  events: string[]
  live: ServerResponse | undefined
  /** `Last-Event-ID` of each stream request. */
  resumes: (string | undefined)[]
  posts: { body: string; headers: IncomingMessage['headers'] }[]
}

let server: TestServer
const transports: HttpTransport[] = []

/** Queues one protocol message (or raw data) on the page connection, written now if the stream is up. */
function push(data: string): void {
  server.events.push(data)
  const n = server.events.length
  server.live?.write(`id: ${server.stream}:${n}\ndata: ${data}\n\n`)
}

/** Ends the live stream from the server side (the page's EventSource reconnects by itself). */
function drop(): void {
  server.live?.end()
  server.live = undefined
}

function start(options: Partial<Parameters<typeof httpTransport>[0]> = {}): HttpTransport {
  const transport = httpTransport({
    streamUrl: '/events',
    postUrl: '/messages',
    baseUrl: server.base,
    EventSource,
    ...options,
  })
  transports.push(transport)
  return transport
}

const call = (id: string) => ({ protocol: 1, type: 'call', clientId: 'c', id, tool: 't', input: {} })
const result = (id: string) => ({ protocol: 1, type: 'result', clientId: 'c', id, result: { status: 'ok' } })

beforeAll(async () => {
  const http = createServer((req, res) => {
    if (req.url === '/events') {
      const last = req.headers['last-event-id']
      server.resumes.push(typeof last === 'string' ? last : undefined)
      if (server.streamStatus !== 200)
        return void res.writeHead(server.streamStatus, { Connection: 'close' }).end()
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store',
        Connection: 'close',
      })
      server.live = res
      req.on('close', () => {
        if (server.live === res) server.live = undefined
      })
      const from =
        typeof last === 'string' && last.startsWith(`${server.stream}:`) ? Number(last.split(':')[1]) : -1
      if (from < 0) {
        res.write(`retry: 20\nevent: ready\nid: ${server.stream}:0\ndata: {"stream":"${server.stream}"}\n\n`)
      }
      server.events.forEach((data, i) => {
        if (server.replayAll || i + 1 > from) res.write(`id: ${server.stream}:${i + 1}\ndata: ${data}\n\n`)
      })
      return
    }
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      server.posts.push({ body, headers: req.headers })
      const answer = server.postAnswers.shift() ?? { status: server.postStatus }
      res
        .writeHead(answer.status, {
          'Content-Type': 'application/json',
          Connection: 'close',
          ...(answer.retryable ? { [RETRYABLE_HEADER]: '1', 'Retry-After': '1' } : {}),
        })
        .end('{}')
    })
  })
  http.listen(0, '127.0.0.1')
  await once(http, 'listening')
  server = {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}/`,
    http,
  } as TestServer
})

afterAll(async () => {
  server.http.closeAllConnections()
  await new Promise((resolve) => server.http.close(resolve))
})

beforeEach(() => {
  Object.assign(server, {
    streamStatus: 200,
    postStatus: 202,
    postAnswers: [],
    replayAll: false,
    stream: 's1',
    events: [],
    live: undefined,
    resumes: [],
    posts: [],
  })
})

afterEach(() => {
  for (const transport of transports.splice(0)) transport.close()
  drop()
})

describe('httpTransport', () => {
  it('carries messages both ways: events in, POSTs out with the stream header, same-origin credentials', async () => {
    const transport = start({ headers: () => ({ 'X-CSRF-Token': 'tok' }) })
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    await transport.send(result('r1'))
    push(JSON.stringify(call('x')))

    await until(() => inbound.length === 1)
    expect(inbound).toEqual([call('x')])
    expect(server.posts).toHaveLength(1)
    const [post] = server.posts
    expect(JSON.parse(post!.body)).toEqual(result('r1'))
    expect(post!.headers[STREAM_HEADER.toLowerCase()]).toBe('s1')
    expect(post!.headers['content-type']).toBe('application/json')
    expect(post!.headers['x-csrf-token']).toBe('tok')
  })

  it('sends nothing before the stream is ready, then posts in order, one at a time', async () => {
    const transport = start()
    const sent = [transport.send(result('a')), transport.send(result('b')), transport.send(result('c'))]
    await Promise.all(sent)
    expect(server.posts.map((p) => (JSON.parse(p.body) as { id: string }).id)).toEqual(['a', 'b', 'c'])
  })

  it('resumes after a dropped stream with Last-Event-ID: an event sent meanwhile arrives once', async () => {
    const transport = start()
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    push(JSON.stringify(call('1')))
    await until(() => inbound.length === 1)

    drop()
    push(JSON.stringify(call('2'))) // while the page is disconnected
    await until(() => inbound.length === 2)
    push(JSON.stringify(call('3')))
    await until(() => inbound.length === 3)

    expect(inbound).toEqual([call('1'), call('2'), call('3')])
    expect(server.resumes).toEqual([undefined, 's1:1'])
  })

  it('drops an event it already had when a server replays too much', async () => {
    server.replayAll = true
    const transport = start()
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    push(JSON.stringify(call('1')))
    await until(() => inbound.length === 1)
    drop()
    push(JSON.stringify(call('2')))
    await until(() => inbound.length === 2 && server.resumes.length === 2)
    push(JSON.stringify(call('3')))
    await until(() => inbound.length === 3)
    expect(inbound).toEqual([call('1'), call('2'), call('3')])
  })

  it('takes a new ready as a new page connection and keeps posting under its id', async () => {
    const transport = start()
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    push(JSON.stringify(call('1')))
    await until(() => inbound.length === 1)
    // The server forgot the connection (a restart): a new stream whose numbering starts again at 1.
    server.stream = 's2'
    server.events = []
    drop()
    push(JSON.stringify(call('again')))
    await until(() => inbound.length === 2)
    await transport.send(result('r'))
    expect(inbound).toEqual([call('1'), call('again')])
    expect(server.posts.at(-1)?.headers[STREAM_HEADER.toLowerCase()]).toBe('s2')
  })

  it('drops events over the length limit and data that is not JSON, unparsed', async () => {
    const transport = start()
    const inbound: unknown[] = []
    transport.onMessage((m) => inbound.push(m))
    push('not json')
    push(`"${'x'.repeat(MAX_EVENT_LENGTH)}"`)
    push(JSON.stringify(call('ok')))
    await until(() => inbound.length === 1)
    expect(inbound).toEqual([call('ok')])
  })

  it('keeps at most 100 messages waiting: a superseded manifest gives way, then other messages, then the oldest result', async () => {
    const transport = start()
    const manifest = (rev: number) => ({ protocol: 1, type: 'manifest', clientId: 'c', rev, tools: [] })
    const settle = (p: void | Promise<void>) =>
      Promise.resolve(p).then(
        () => 'sent',
        (error: Error) => error.message,
      )
    // All sent before the stream is ready: they wait in the queue.
    const early = Array.from({ length: 99 }, (_, i) => settle(transport.send(result(`r${i}`))))
    const rev1 = settle(transport.send(manifest(1)))
    const rev2 = settle(transport.send(manifest(2))) // the queue is full: rev 1 is superseded
    const late = [settle(transport.send(result('r99'))), settle(transport.send(result('r100')))]
    expect(await rev1).toBe('sent')
    expect(await rev2).toMatch(
      /outgoing queue full \(100 messages waiting\); dropped a queued "manifest" message/,
    )
    expect(await early[0]).toMatch(/dropped a queued "result" message \(id r0\)/)
    expect(await Promise.all([...early.slice(1), ...late])).toEqual(Array(100).fill('sent'))
    expect(server.posts.map((p) => (JSON.parse(p.body) as { id: string }).id)).toEqual(
      Array.from({ length: 100 }, (_, i) => `r${i + 1}`),
    )
  })

  it('rejects a send the server answers with a non-2xx status', async () => {
    server.postStatus = 403
    const transport = start()
    await expect(transport.send(result('r'))).rejects.toThrow(/answered HTTP 403/)
  })

  it('stops when the server refuses the stream: onError, queued sends reject, later sends throw', async () => {
    server.streamStatus = 401
    const transport = start()
    const errors: unknown[] = []
    transport.onError((e) => errors.push(e))
    const queued = transport.send(result('r'))
    await expect(queued).rejects.toThrow(/refused or failed/)
    expect(errors).toHaveLength(1)
    expect(() => transport.send(result('r2'))).toThrow(/stopped/)
    expect(server.posts).toEqual([])
  })

  it('refuses a cross-origin, credentialed, non-http or base-less relative URL at construction', () => {
    const other = 'http://evil.example/messages'
    expect(() => start({ postUrl: other })).toThrow(TypeError)
    expect(() => start({ streamUrl: other })).toThrow(/streamUrl .* must be same-origin/)
    expect(() => start({ postUrl: `${server.base.replace('http://', 'http://u:p@')}m` })).toThrow(
      /credentials/,
    )
    expect(() => start({ postUrl: 'ftp://127.0.0.1/m' })).toThrow(TypeError)
    expect(() => httpTransport({ streamUrl: '/e', postUrl: '/m', EventSource })).toThrow(/absolute URL/)
  })

  it('throws a TypeError without an EventSource implementation', () => {
    expect(() => httpTransport({ streamUrl: '/e', postUrl: '/m', baseUrl: server.base })).toThrow(
      /no EventSource implementation/,
    )
  })

  it('runs a bridge: a call from the stream is answered by a POSTed result', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'notes.read',
      description: 'Read',
      hints: { readOnly: true },
      input: z.object({}),
      run: () => ok('first'),
    })
    const detach = tm.use(bridge({ transport: start(), clientId: 'c' }))
    await until(() => server.posts.some((p) => p.body.includes('"manifest"')))
    push(
      JSON.stringify({ protocol: 1, type: 'call', clientId: 'c', id: 'k1', tool: 'notes.read', input: {} }),
    )
    await until(() => server.posts.some((p) => p.body.includes('"result"')))
    const answer = JSON.parse(server.posts.find((p) => p.body.includes('"result"'))!.body)
    expect(answer).toMatchObject({ type: 'result', id: 'k1', result: { status: 'ok', data: 'first' } })
    detach()
  })

  describe('a send the server marks as retryable', () => {
    it('is sent again with backoff until it is accepted, before the next message goes', async () => {
      server.postAnswers = [
        { status: 503, retryable: true },
        { status: 503, retryable: true },
      ]
      const transport = start()
      const sent = transport.send(result('r1'))
      const next = transport.send(result('r2'))
      await sent
      await next
      expect(server.posts.map((p) => JSON.parse(p.body).id)).toEqual(['r1', 'r1', 'r1', 'r2'])
    })

    it(`gives up after ${MAX_RETRIES} retries, and never retries an answer without the marker`, async () => {
      server.postAnswers = Array.from({ length: MAX_RETRIES + 1 }, () => ({ status: 503, retryable: true }))
      server.postAnswers.push({ status: 404 }, { status: 503 })
      const transport = start()
      await expect(transport.send(result('r1'))).rejects.toThrow(/answered HTTP 503/)
      expect(server.posts).toHaveLength(MAX_RETRIES + 1)
      await expect(transport.send(result('r2'))).rejects.toThrow(/answered HTTP 404/)
      await expect(transport.send(result('r3'))).rejects.toThrow(/answered HTTP 503/)
      expect(server.posts.map((p) => JSON.parse(p.body).id).slice(MAX_RETRIES + 1)).toEqual(['r2', 'r3'])
    }, 10_000)
  })
})
