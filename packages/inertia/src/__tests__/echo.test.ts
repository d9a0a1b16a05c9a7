import { router } from '@inertiajs/core'
import { createToolmark, ok, type Toolmark } from '@toolmark/core'
import { type PusherServer, startPusherServer } from '@toolmark-internal/pusher-server'
import Echo from 'laravel-echo'
import Pusher from 'pusher-js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { connectEcho, type ToolmarkSharedProps } from '../index.ts'
import { until } from './support/helpers.ts'
import { setPageUrl } from './support/inertia-server.ts'

/*
 * The real laravel-echo 2.5 + pusher-js 8.6 in happy-dom against the Pusher protocol 7 server on
 * `ws` (the page is served from that server's origin, so the bridge POSTs same-origin to it), and
 * the real @inertiajs/core router delivering the shared props.
 */

let server: PusherServer
let tm: Toolmark
const cleanups: Array<() => void> = []
const echos: Echo<'reverb'>[] = []

const props = (conversationId: string | null, userId = 'alice'): ToolmarkSharedProps => ({
  userId,
  conversationId,
  broadcaster: { key: server.key, wsHost: '127.0.0.1', wsPort: server.port },
})

const page = (toolmark: ToolmarkSharedProps | null) => ({
  component: 'Chat',
  url: '/',
  props: { errors: {}, toolmark },
})

function makeEcho(p: ToolmarkSharedProps, user = String(p.userId)): Echo<'reverb'> {
  const echo = new Echo({
    broadcaster: 'reverb',
    ...(p.broadcaster as { key: string; wsHost: string; wsPort: number }),
    wssPort: server.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    authEndpoint: server.authEndpoint,
    auth: { headers: { 'X-Test-User': user } },
    Pusher,
  })
  echos.push(echo)
  return echo
}

const posts = () => server.posts.map((p) => ({ path: p.path, headers: p.headers, body: JSON.parse(p.body) }))

function start(initial: ToolmarkSharedProps | null, echo?: Echo<'reverb'>) {
  tm = createToolmark()
  tm.register({ name: 'greet', description: 'Greets', run: () => ok('hi') })
  let factoryCalls = 0
  const dispose = connectEcho(tm, {
    router,
    initialPage: page(initial),
    echo:
      echo ??
      ((p) => {
        factoryCalls++
        return makeEcho(p)
      }),
  })
  cleanups.push(dispose)
  return { dispose, factoryCalls: () => factoryCalls }
}

const call = (clientId: string, id: string) => ({
  protocol: 1,
  type: 'call',
  clientId,
  id,
  tool: 'greet',
  input: {},
})

beforeAll(async () => {
  server = await startPusherServer({
    authorize: (user, channel) => channel.startsWith(`private-toolmark.${user}.`),
  })
  setPageUrl(`${server.url}/`)
  // biome-ignore lint/suspicious/noDocumentCookie: Laravel's XSRF-TOKEN cookie, as the browser holds it
  document.cookie = 'XSRF-TOKEN=tok%3Den; path=/'
  router.init({
    initialPage: { ...page(null), version: null, flash: {}, rescuedProps: [], rememberedState: {} },
    resolveComponent: (name: string) => name,
    swapComponent: async () => {},
  })
})

afterEach(() => {
  for (const dispose of cleanups.splice(0)) dispose()
  for (const echo of echos.splice(0)) echo.disconnect()
  server.posts.length = 0
})

afterAll(() => server.close())

describe('connectEcho', () => {
  it('attaches the bridge on toolmark.{user}.{conversation} and POSTs results with X-XSRF-TOKEN and X-Socket-ID', async () => {
    start(props('c1'))
    await until(() => server.subscribers('private-toolmark.alice.c1').length === 1, 'subscription')
    await until(() => posts().some((p) => p.body.type === 'manifest'), 'manifest')
    const manifest = posts().find((p) => p.body.type === 'manifest')
    expect(manifest?.path).toBe('/toolmark/bridge/c1')
    const clientId = manifest?.body.clientId as string

    await server.trigger('private-toolmark.alice.c1', 'toolmark.message', { message: call(clientId, 'k1') })
    await until(() => posts().some((p) => p.body.type === 'result'), 'result')
    const result = posts().find((p) => p.body.type === 'result')
    expect(result?.body).toEqual({
      protocol: 1,
      type: 'result',
      clientId,
      id: 'k1',
      result: { status: 'ok', data: 'hi' },
    })
    expect(result?.headers['x-xsrf-token']).toBe('tok=en')
    expect(result?.headers['x-socket-id']).toBe(echos[0]?.socketId())
    expect(result?.headers['x-requested-with']).toBe('XMLHttpRequest')
  })

  it('follows the conversation shared prop: leaves the old channel, joins the new one, same clientId', async () => {
    start(props('c1'))
    await until(() => server.subscribers('private-toolmark.alice.c1').length === 1, 'first subscription')
    await until(() => posts().length > 0, 'first manifest')
    const clientId = posts()[0]?.body.clientId

    router.push({ props: { errors: {}, toolmark: props('c2') } })
    await until(() => server.subscribers('private-toolmark.alice.c2').length === 1, 'second subscription')
    await until(() => server.subscribers('private-toolmark.alice.c1').length === 0, 'old channel left')
    await until(() => posts().some((p) => p.path === '/toolmark/bridge/c2'), 'manifest for c2')
    expect(posts().find((p) => p.path === '/toolmark/bridge/c2')?.body.clientId).toBe(clientId)

    // A prop update that keeps the conversation keeps the bridge (no second manifest for c2).
    const before = posts().length
    router.push({ props: { errors: {}, toolmark: props('c2'), unrelated: 1 } })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(posts().length).toBe(before)

    // No conversation: the bridge detaches.
    router.push({ props: { errors: {}, toolmark: props(null) } })
    await until(() => server.subscribers('private-toolmark.alice.c2').length === 0, 'detached')
  })

  it('creates the Echo instance lazily, once, and disconnects the one it created on dispose', async () => {
    const { dispose, factoryCalls } = start(null)
    expect(factoryCalls()).toBe(0)
    router.push({ props: { errors: {}, toolmark: props('c3') } })
    await until(() => server.subscribers('private-toolmark.alice.c3').length === 1, 'subscription')
    router.push({ props: { errors: {}, toolmark: props('c4') } })
    await until(() => server.subscribers('private-toolmark.alice.c4').length === 1, 'second subscription')
    expect(factoryCalls()).toBe(1)
    dispose()
    await until(() => echos[0]?.connectionStatus() !== 'connected', 'disconnect')
  })

  it('leaves an Echo instance the app passed connected on dispose', async () => {
    const own = makeEcho(props('c5'))
    const { dispose } = start(props('c5'), own)
    await until(() => server.subscribers('private-toolmark.alice.c5').length === 1, 'subscription')
    dispose()
    await until(() => server.subscribers('private-toolmark.alice.c5').length === 0, 'channel left')
    expect(own.connectionStatus()).toBe('connected')
  })

  it('reports transport_failed when the server refuses the POST (a 419 without a valid CSRF token)', async () => {
    const errors: string[] = []
    server.respond = () => ({ status: 419 })
    start(props('c6'))
    tm.events.on('error', (e) => errors.push(e.code))
    await until(() => errors.includes('transport_failed'), 'transport_failed')
    server.respond = () => ({ status: 204 })
  })

  it('never runs a call whispered on the channel by another client', async () => {
    start(props('c7'))
    await until(() => server.subscribers('private-toolmark.alice.c7').length === 1, 'subscription')
    await until(() => posts().length > 0, 'manifest')
    const clientId = posts()[0]?.body.clientId as string
    const runs: string[] = []
    tm.events.on('call', (e) => runs.push(e.tool))
    const other = makeEcho(props('c7'))
    const channel = other.private('toolmark.alice.c7')
    await until(() => server.subscribers('private-toolmark.alice.c7').length === 2, 'intruder subscribed')
    channel.whisper('toolmark.message', call(clientId, 'w1'))
    channel.whisper('.toolmark.message', { message: call(clientId, 'w2') })
    await until(() => server.clientEvents.length >= 2, 'whispers relayed')
    expect(server.clientEvents.every((e) => e.relayedTo === 1)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(runs).toEqual([])
    expect(posts().filter((p) => p.body.type === 'result')).toEqual([])
  })
})
