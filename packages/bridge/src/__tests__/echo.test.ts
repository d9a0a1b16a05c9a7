import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { type PusherServer, startPusherServer } from '@toolmark-internal/pusher-server'
import Echo from 'laravel-echo'
import PusherServerSdk from 'pusher'
import Pusher from 'pusher-js'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { bridge } from '../bridge.ts'
import { type EchoTransport, echoTransport, xsrfToken } from '../echo.ts'
import { until } from './helpers.ts'

/*
 * The real laravel-echo 2.5 + pusher-js 8.6 (Node build) against a Pusher protocol 7 server on `ws`
 * (support/pusher-server.ts); server → page broadcasts go through the real `pusher` server SDK.
 */

const CHANNEL = 'toolmark.alice.c1'
const PRIVATE = `private-${CHANNEL}`
const EVENT = 'toolmark.message'

let server: PusherServer
const echos: Echo<'reverb'>[] = []
const transports: EchoTransport[] = []

function connect(user: string, extra: Record<string, unknown> = {}): Echo<'reverb'> {
  const echo = new Echo({
    broadcaster: 'reverb',
    key: server.key,
    wsHost: '127.0.0.1',
    wsPort: server.port,
    wssPort: server.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    authEndpoint: server.authEndpoint,
    auth: { headers: { 'X-Test-User': user } },
    Pusher,
    ...extra,
  })
  echos.push(echo)
  return echo
}

function open(echo: Echo<'reverb'>, options: Partial<Parameters<typeof echoTransport>[0]> = {}) {
  const transport = echoTransport({ echo, channel: CHANNEL, postUrl: server.postUrl, ...options })
  transports.push(transport)
  const messages: unknown[] = []
  const errors: unknown[] = []
  transport.onMessage((m) => messages.push(m))
  transport.onError((e) => errors.push(e))
  return { transport, messages, errors }
}

const subscribed = (echo: Echo<'reverb'>) =>
  until(() => server.subscribers(PRIVATE).includes(echo.socketId() ?? '-'), 'subscription')

const call = (id: string) => ({
  protocol: 1,
  type: 'call',
  clientId: 'c',
  id,
  tool: 'signup.fill',
  input: {},
})

beforeAll(async () => {
  server = await startPusherServer({
    authorize: (user, channel) => channel === `private-toolmark.${user}.c1`,
  })
})

afterEach(() => {
  for (const transport of transports.splice(0)) transport.close()
  for (const echo of echos.splice(0)) echo.disconnect()
  server.posts.length = 0
  server.clientEvents.length = 0
  server.respond = () => ({ status: 204 })
})

afterAll(async () => {
  await server.close()
})

describe('echoTransport inbound (Echo private channel)', () => {
  it('hands the broadcast payload to the bridge: as the message, or unwrapped from { message }', async () => {
    const echo = connect('alice')
    const { messages, errors } = open(echo)
    await subscribed(echo)

    await server.trigger(PRIVATE, EVENT, call('direct'))
    await server.trigger(PRIVATE, EVENT, { message: call('wrapped') })
    await until(() => messages.length === 2)

    expect(messages).toEqual([call('direct'), call('wrapped')])
    expect(errors).toEqual([])
  })

  it('hands other payload shapes to the bridge as they are (it validates), and ignores other event names', async () => {
    const echo = connect('alice')
    const { messages } = open(echo)
    await subscribed(echo)

    const payloads = [null, { foo: 1 }, { message: 'text' }, { message: null }, [1, 2], 'text', 42]
    for (const payload of payloads) await server.trigger(PRIVATE, EVENT, payload)
    await server.trigger(PRIVATE, 'other.event', call('other-event'))
    await server.trigger(PRIVATE, `App\\Events\\${EVENT}`, call('namespaced'))
    await server.trigger(PRIVATE, EVENT, call('marker'))
    await until(() => messages.length === payloads.length + 1)

    expect(messages).toEqual([null, { foo: 1 }, 'text', null, [1, 2], 'text', 42, call('marker')])
  })

  it('a broadcast whose message is a JSON string is dropped by the bridge with invalid_message, never run', async () => {
    const echo = connect('alice')
    const { transport } = open(echo)
    const tm = createTestToolmark({ dev: false })
    const run = vi.fn(() => ok())
    tm.register({ name: 'signup.fill', description: 'd', hints: { readOnly: true }, run })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    server.respond = () => ({ status: 204 })
    tm.use(bridge({ transport, clientId: 'c' }))
    await subscribed(echo)
    await server.trigger(PRIVATE, EVENT, { message: JSON.stringify(call('as-text')) })
    await until(() => errors.length > 0, 'invalid_message')
    expect(errors).toEqual(['invalid_message'])
    expect(run).not.toHaveBeenCalled()
  })

  it('never hands a client whisper to the bridge, even one named like the server event', async () => {
    const page = connect('alice')
    const { messages } = open(page)
    const whispersSeenByPage: unknown[] = []
    // A test-only spy on the same Echo channel, proving the whisper reached the page's socket.
    page.private(CHANNEL).listenForWhisper(EVENT, (data: unknown) => whispersSeenByPage.push(data))
    const otherTab = connect('alice')
    const otherChannel = otherTab.private(CHANNEL)
    await subscribed(page)
    await subscribed(otherTab)

    otherChannel.whisper(EVENT, call('whispered'))
    otherChannel.whisper(EVENT, { message: call('whispered-wrapped') })
    await until(() => whispersSeenByPage.length === 2, 'whisper relay')
    await server.trigger(PRIVATE, EVENT, call('marker'))
    await until(() => messages.length > 0)

    expect(server.clientEvents.map((e) => [e.event, e.relayedTo])).toEqual([
      [`client-${EVENT}`, 1],
      [`client-${EVENT}`, 1],
    ])
    expect(whispersSeenByPage).toEqual([call('whispered'), { message: call('whispered-wrapped') }])
    expect(messages).toEqual([call('marker')])
  })

  it('refuses, at construction, event names that would listen to whispers or Pusher internals', () => {
    const echo = connect('alice')
    for (const event of [
      '.client-toolmark.message',
      '\\client-x',
      '.pusher:subscription_succeeded',
      '.',
      '',
    ]) {
      expect(() => echoTransport({ echo, channel: CHANNEL, event, postUrl: server.postUrl })).toThrow(
        TypeError,
      )
    }
    expect(() => echoTransport({ echo, channel: '', postUrl: server.postUrl })).toThrow(TypeError)
  })

  it('reports a refused channel authorization (HTTP 403 from /broadcasting/auth) through onError', async () => {
    const echo = connect('mallory') // authorized for toolmark.mallory.c1 only
    const { messages, errors } = open(echo)
    await until(() => errors.length === 1, 'auth error')

    const error = errors[0] as Error
    expect(error.message).toBe(`echoTransport: subscription to private channel "${CHANNEL}" failed`)
    expect(error.cause).toMatchObject({ type: 'AuthError', status: 403 })
    expect(server.subscribers(PRIVATE)).toEqual([])
    await server.trigger(PRIVATE, EVENT, call('not-for-mallory'))
    expect(messages).toEqual([])
  })

  it('reports a subscription the server refuses (forged auth signature) through onError', async () => {
    const echo = connect('alice', {
      channelAuthorization: {
        customHandler: (_params: unknown, callback: (error: null, data: { auth: string }) => void) =>
          callback(null, { auth: `${server.key}:${'0'.repeat(64)}` }),
      },
    })
    const { errors } = open(echo)
    await until(() => errors.length === 1, 'auth error')
    expect((errors[0] as Error).cause).toMatchObject({ type: 'AuthError', error: 'Invalid signature' })
    expect(server.subscribers(PRIVATE)).toEqual([])
  })

  it('close() stops listening and leaves the private channel', async () => {
    const echo = connect('alice')
    const { transport, messages } = open(echo)
    await subscribed(echo)
    transport.close()
    transport.close()
    await until(() => server.subscribers(PRIVATE).length === 0, 'unsubscribe')

    await server.trigger(PRIVATE, EVENT, call('after-close'))
    await expect(transport.send(call('x'))).rejects.toThrow(/closed/)
    expect(messages).toEqual([])
    expect(server.posts).toEqual([])
  })
})

describe('echoTransport outbound (same-origin POST)', () => {
  it('POSTs the message as JSON with the Laravel headers, reading headers() on every send', async () => {
    const echo = connect('alice')
    let cookies = 'theme=dark; XSRF-TOKEN=first%3Dtoken; other=1'
    const { transport } = open(echo, {
      headers: () => ({ 'X-XSRF-TOKEN': xsrfToken('XSRF-TOKEN', cookies) }),
    })

    await transport.send(call('one'))
    cookies = 'XSRF-TOKEN=second%2Ftoken'
    await transport.send(call('two'))

    expect(server.posts.map((p) => JSON.parse(p.body))).toEqual([call('one'), call('two')])
    expect(server.posts.map((p) => p.headers['x-xsrf-token'])).toEqual(['first=token', 'second/token'])
    expect(server.posts[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'x-requested-with': 'XMLHttpRequest',
    })
  })

  it('rejects on a non-2xx answer (e.g. 419 CSRF token mismatch)', async () => {
    const { transport } = open(connect('alice'))
    server.respond = () => ({ status: 419 })
    await expect(transport.send(call('x'))).rejects.toThrow(/answered HTTP 419/)
    server.respond = () => ({ status: 200 })
    await expect(transport.send(call('y'))).resolves.toBeUndefined()
  })

  it('rejects a redirect instead of following it', async () => {
    const { transport } = open(connect('alice'))
    // 307 keeps the method, so a followed redirect would POST the message again (and succeed).
    server.respond = () =>
      server.posts.length === 1 ? { status: 307, headers: { location: server.postUrl } } : { status: 204 }
    await expect(transport.send(call('x'))).rejects.toThrow()
    expect(server.posts).toHaveLength(1)
  })

  it('rejects when the network fails', async () => {
    const closedServer = await startPusherServer()
    const postUrl = closedServer.postUrl
    await closedServer.close()
    const { transport } = open(connect('alice'), { postUrl })
    await expect(transport.send(call('x'))).rejects.toThrow()
  })

  it('rejects when headers() throws', async () => {
    const { transport } = open(connect('alice'), {
      headers: () => {
        throw new Error('no token')
      },
    })
    await expect(transport.send(call('x'))).rejects.toThrow('no token')
    expect(server.posts).toEqual([])
  })

  it('resolves a relative postUrl against the page URL and sends it there', async () => {
    const { transport } = open(connect('alice'), {
      postUrl: '/toolmark/bridge',
      baseUrl: `${server.url}/chat/7`,
    })
    await transport.send(call('relative'))
    expect(server.posts.map((p) => p.path)).toEqual(['/toolmark/bridge'])
  })

  it('throws a TypeError at construction for a postUrl that is not same-origin', () => {
    const echo = connect('alice')
    const page = `${server.url}/chat/7`
    const make = (postUrl: string, baseUrl?: string) => () =>
      echoTransport({ echo, channel: CHANNEL, postUrl, ...(baseUrl === undefined ? {} : { baseUrl }) })

    expect(make('https://evil.example/toolmark/bridge', page)).toThrow(TypeError)
    expect(make(`http://127.0.0.1:${server.port + 1}/toolmark/bridge`, page)).toThrow(/same-origin/)
    expect(make(`https://127.0.0.1:${server.port}/toolmark/bridge`, page)).toThrow(/same-origin/)
    expect(make('//evil.example/toolmark/bridge', page)).toThrow(/same-origin/)
    expect(make('javascript:alert(1)', page)).toThrow(/http/)
    expect(make(`http://user:pw@127.0.0.1:${server.port}/x`, page)).toThrow(/credentials/)
    expect(make('/toolmark/bridge')).toThrow(/absolute URL when there is no location/)
    expect(make('', page)).toThrow(TypeError)
    expect(make('/toolmark/bridge', page)).not.toThrow()
    expect(make(server.postUrl)).not.toThrow()
  })
})

describe('xsrfToken', () => {
  it('returns the URL-decoded XSRF-TOKEN cookie, or "" when absent or malformed', () => {
    expect(xsrfToken('XSRF-TOKEN', 'a=1; XSRF-TOKEN=eyJpdiI6%3D%3D; b=2')).toBe('eyJpdiI6==')
    expect(xsrfToken('XSRF-TOKEN', 'XSRF-TOKEN=x')).toBe('x')
    expect(xsrfToken('XSRF-TOKEN', 'MY-XSRF-TOKEN=nope')).toBe('')
    expect(xsrfToken('XSRF-TOKEN', 'XSRF-TOKEN=%E0%A4%A')).toBe('')
    expect(xsrfToken('XSRF-TOKEN', '')).toBe('')
    expect(xsrfToken('a.b', 'aXb=wrong; a.b=right')).toBe('right')
  })

  it('reads document.cookie by default and returns "" without a document', () => {
    expect(xsrfToken()).toBe('')
    const doc = { cookie: 'XSRF-TOKEN=from%20document' }
    ;(globalThis as { document?: unknown }).document = doc
    try {
      expect(xsrfToken()).toBe('from document')
    } finally {
      delete (globalThis as { document?: unknown }).document
    }
  })
})

describe('echoTransport with the bridge', () => {
  it('POSTs the manifest, runs a broadcast call once and POSTs its result; a whispered call never runs', async () => {
    const run = vi.fn(({ query }: { query: string }) => ok({ query }))
    const tm = createTestToolmark({ dev: false })
    tm.register({
      name: 'search',
      description: 'Search',
      input: z.object({ query: z.string() }),
      hints: { readOnly: true },
      run,
    })
    const page = connect('alice')
    const otherTab = connect('alice')
    const otherChannel = otherTab.private(CHANNEL)
    const whispers: unknown[] = []
    page.private(CHANNEL).listenForWhisper(EVENT, (data: unknown) => whispers.push(data))
    const transport = echoTransport({ echo: page, channel: CHANNEL, postUrl: server.postUrl })
    transports.push(transport)
    const dispose = tm.use(bridge({ transport }))
    await subscribed(page)
    await subscribed(otherTab)

    const bodies = () => server.posts.map((p) => JSON.parse(p.body) as Record<string, unknown>)
    await until(() => bodies().some((m) => m.type === 'manifest'), 'manifest POST')
    const manifest = bodies().find((m) => m.type === 'manifest')!
    expect(manifest).toMatchObject({ protocol: 1, tools: [{ name: 'search' }] })
    const clientId = manifest.clientId as string
    const call = (id: string, query: string) => ({
      protocol: 1,
      type: 'call',
      clientId,
      id,
      tool: 'search',
      input: { query },
    })

    otherChannel.whisper(EVENT, call('forged', 'from-a-whisper'))
    otherChannel.whisper(EVENT, { message: call('forged-2', 'from-a-whisper') })
    await until(() => whispers.length === 2, 'whisper relay')
    await server.trigger(PRIVATE, EVENT, { message: call('real', 'from-the-server') })
    await until(() => bodies().some((m) => m.type === 'result'), 'result POST')

    expect(run).toHaveBeenCalledTimes(1)
    expect(run.mock.calls[0]![0]).toEqual({ query: 'from-the-server' })
    expect(bodies().filter((m) => m.type === 'result')).toEqual([
      {
        protocol: 1,
        type: 'result',
        clientId,
        id: 'real',
        result: { status: 'ok', data: { query: 'from-the-server' } },
      },
    ])
    dispose()
  })
})

describe('echoTransport sends once the page listens', () => {
  it('POSTs the first manifest only after the channel subscription succeeded, so a call broadcast in answer at once runs', async () => {
    const run = vi.fn(() => ok('saved'))
    const tm = createTestToolmark({ dev: false })
    tm.register({ name: 'save', description: 'Save', input: z.object({}), hints: { readOnly: true }, run })
    const page = connect('alice')
    // The server answers the first manifest at once on the channel, as Laravel does for a card asked again.
    const subscribedAtPost: boolean[] = []
    server.respond = (post) => {
      const message = JSON.parse(post.body) as { type: string; clientId: string }
      if (message.type === 'manifest') {
        subscribedAtPost.push(server.subscribers(PRIVATE).includes(page.socketId() ?? '-'))
        const call = {
          protocol: 1,
          type: 'call',
          clientId: message.clientId,
          id: 'asked-again',
          tool: 'save',
          input: {},
        }
        void server.trigger(PRIVATE, EVENT, { message: call })
      }
      return { status: 204 }
    }
    const transport = echoTransport({ echo: page, channel: CHANNEL, postUrl: server.postUrl })
    transports.push(transport)
    const dispose = tm.use(bridge({ transport }))
    await until(() => run.mock.calls.length === 1, 'the call answered at once runs')
    expect(subscribedAtPost[0]).toBe(true)
    dispose()
  })
})

describe('the Pusher test server (support)', () => {
  it('refuses REST triggers without a valid Pusher signature', async () => {
    const forged = new PusherServerSdk({
      appId: server.appId,
      key: server.key,
      secret: 'wrong-secret',
      host: '127.0.0.1',
      port: String(server.port),
      useTLS: false,
    })
    await expect(forged.trigger(PRIVATE, EVENT, call('forged'))).rejects.toMatchObject({ status: 401 })
    const unsigned = await fetch(`${server.url}/apps/${server.appId}/events`, {
      method: 'POST',
      body: JSON.stringify({ name: EVENT, channels: [PRIVATE], data: '{}' }),
    })
    expect(unsigned.status).toBe(401)
  })
})
