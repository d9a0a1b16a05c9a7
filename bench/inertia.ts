// Inertia benchmarks (@toolmark/inertia): every figure is printed next to a floor measured in the same
// run, as a ratio. Nothing here asserts: goals are printed beside the figures. Run with `pnpm bench:inertia`.
//
// 1. Page-scope switch: the Toolmark work of one Inertia visit to another component: `beforeUpdate`
//    prepares the next scope, the new page's 5 tools register into it, `navigate` makes it current and
//    disposes the old page's 5 tools, then the manifest is rebuilt once (what the bridge sends). The router
//    is a minimal event emitter with Inertia's `router.on` shape, so Inertia's own work (XHR, history, React)
//    is not counted. Floor: the same 5 registrations, 5 disposals and manifest by hand on plain scopes.
// 2. Partial reload: a `success` event for the same component (what `router.reload({ only })` fires):
//    time per event and the number of manifest revisions it causes (goal: none). Floor: an empty listener.
// 3. Echo round trip on loopback: a call broadcast through the Pusher-protocol server (@toolmark-internal/
//    pusher-server, signed REST publish) to laravel-echo + pusher-js, run by the registry through the bridge
//    `connectEcho` attached from shared props, and its result POSTed back (X-XSRF-TOKEN + X-Socket-ID).
//    Floor: the same broadcast to a bare `echo.private().listen` whose callback does a fetch POST.
import { performance } from 'node:perf_hooks'
import { createToolmark, ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { bindInertia, connectEcho, type InertiaPageLike, type InertiaRouterLike } from '@toolmark/inertia'
import { type PusherServer, startPusherServer } from '@toolmark-internal/pusher-server'
import Echo from 'laravel-echo'
import Pusher from 'pusher-js'

environment.setIsServer(false)
const rows: string[][] = []
const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(3)} ms`)
const row = (what: string, ms: number, floorMs: number, goal: string) =>
  rows.push([what, fmt(ms), fmt(floorMs), `${(ms / floorMs).toFixed(2)}×`, goal])

async function median(fn: () => Promise<unknown> | unknown, rounds: number, batch = 1): Promise<number> {
  for (let i = 0; i < Math.min(rounds, 50); i++) await fn()
  const per: number[] = []
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now()
    for (let i = 0; i < batch; i++) await fn()
    per.push((performance.now() - t0) / batch)
  }
  per.sort((a, b) => a - b)
  return per[Math.floor(per.length / 2)] ?? Number.NaN
}

/** A router with Inertia's `on`/`visit` shape whose events the bench fires by hand. */
function eventRouter() {
  const listeners = new Map<string, Set<(event: CustomEvent) => unknown>>()
  const router: InertiaRouterLike = {
    on(type, callback) {
      const set = listeners.get(type) ?? new Set()
      set.add(callback as (event: CustomEvent) => unknown)
      listeners.set(type, set)
      return () => set.delete(callback as (event: CustomEvent) => unknown)
    },
    visit() {},
  }
  const fire = (type: string, page: InertiaPageLike) => {
    const event = new CustomEvent(`inertia:${type}`, { detail: { page } })
    for (const listener of listeners.get(type) ?? []) listener(event)
  }
  return { router, fire }
}

const page = (component: string): InertiaPageLike => ({ component, url: `/${component}`, props: {} })
const tools = (prefix: string) =>
  Array.from({ length: 5 }, (_, i) => ({
    name: `${prefix}.tool${i}`,
    description: `Tool ${i}`,
    run: () => ok(),
  }))
const flush = () => new Promise<void>((resolve) => queueMicrotask(resolve))

// ── 1. Page-scope switch ─────────────────────────────────────────────────────
{
  const tm = createToolmark()
  const { router, fire } = eventRouter()
  const binding = bindInertia(tm, { router, initialPage: page('A'), navigation: false })
  for (const t of tools('a')) binding.page?.register(t)
  let n = 0
  const switchPage = async () => {
    const next = page(n++ % 2 === 0 ? 'B' : 'A')
    fire('beforeUpdate', next)
    const scope = binding.scopeFor(next)
    for (const t of tools(next.component.toLowerCase())) scope?.register(t)
    fire('navigate', next)
    await flush()
    return tm.manifest()
  }
  const ours = await median(switchPage, 2000)

  const bare = createToolmark()
  let current = bare.scope('', { transparent: true })
  for (const t of tools('a')) current.register(t)
  let m = 0
  const byHand = async () => {
    const next = bare.scope('', { transparent: true })
    for (const t of tools(m++ % 2 === 0 ? 'b' : 'a')) next.register(t)
    current.dispose()
    current = next
    await flush()
    return bare.manifest()
  }
  const floor = await median(byHand, 2000)
  row('page-scope switch (5 tools out, 5 in, manifest)', ours, floor, 'goal ≤ 1 ms of Toolmark work')
  binding.dispose()
}

// ── 2. Partial reload: same component ────────────────────────────────────────
{
  const tm = createToolmark()
  const { router, fire } = eventRouter()
  const binding = bindInertia(tm, { router, initialPage: page('A'), navigation: false })
  for (const t of tools('a')) binding.page?.register(t)
  await flush()
  let revisions = 0
  tm.subscribe(() => revisions++)
  const rev = tm.rev
  const same = page('A')
  const ours = await median(() => fire('success', same), 200, 1000)
  const empty = eventRouter()
  empty.router.on('success', () => {})
  const floor = await median(() => empty.fire('success', same), 200, 1000)
  await flush()
  row(
    `partial reload (success, same component): ${revisions} manifests, rev +${tm.rev - rev}`,
    ours,
    floor,
    'goal: 0 manifests',
  )
  binding.dispose()
}

// ── 3. Echo call → POST result round trip ────────────────────────────────────
{
  let arrived: ((body: string) => void) | undefined
  const server: PusherServer = await startPusherServer({
    respond: (post) => {
      arrived?.(post.body)
      return { status: 204 }
    },
  })
  const makeEcho = () =>
    new Echo({
      broadcaster: 'reverb',
      key: server.key,
      wsHost: '127.0.0.1',
      wsPort: server.port,
      wssPort: server.port,
      forceTLS: false,
      enabledTransports: ['ws'],
      authEndpoint: server.authEndpoint,
      Pusher,
    })
  const until = async (predicate: () => boolean) => {
    while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const next = () => new Promise<string>((resolve) => (arrived = resolve))

  // Ours: connectEcho from shared props, a registry tool, the bridge's result POST.
  const tm = createToolmark()
  tm.register({ name: 'ping', description: 'Ping', hints: { readOnly: true }, run: () => ok('pong') })
  const echo = makeEcho()
  const { router } = eventRouter()
  const firstManifest = next()
  const dispose = connectEcho(tm, {
    router,
    initialPage: {
      component: 'Chat',
      url: '/',
      props: { toolmark: { userId: 'u', conversationId: 'c1', postUrl: `${server.url}/toolmark/bridge/c1` } },
    },
    echo,
  })
  const clientId = (JSON.parse(await firstManifest) as { clientId: string }).clientId
  await until(() => server.subscribers('private-toolmark.u.c1').length === 1)
  let id = 0
  const roundTrip = async () => {
    const done = next()
    await server.trigger('private-toolmark.u.c1', 'toolmark.message', {
      message: { protocol: 1, type: 'call', clientId, id: `k${id++}`, tool: 'ping', input: {} },
    })
    await done
  }
  // Floor: the same broadcast to a bare listener that POSTs with fetch.
  const bareEcho = makeEcho()
  bareEcho.private('bare.c1').listen('.toolmark.message', (payload: unknown) => {
    void fetch(`${server.url}/toolmark/bridge/bare`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    }).then((r) => r.body?.cancel())
  })
  await until(() => server.subscribers('private-bare.c1').length === 1)
  const bare = async () => {
    const done = next()
    await server.trigger('private-bare.c1', 'toolmark.message', { message: { id: id++ } })
    await done
  }
  // Interleaved, so both see the same machine state (2 shared cores).
  for (let i = 0; i < 30; i++) {
    await roundTrip()
    await bare()
  }
  const oursRuns: number[] = []
  const bareRuns: number[] = []
  for (let i = 0; i < 300; i++) {
    let t0 = performance.now()
    await roundTrip()
    oursRuns.push(performance.now() - t0)
    t0 = performance.now()
    await bare()
    bareRuns.push(performance.now() - t0)
  }
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
  row('Echo call → POST result (loopback)', mid(oursRuns), mid(bareRuns), 'goal ≤ 1.5× the floor')
  dispose()
  echo.disconnect()
  bareEcho.disconnect()
  await server.close()
}

const header = ['benchmark', 'ours', 'floor', 'ratio', 'goal']
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')
console.log(line(header))
for (const r of rows) console.log(line(r))
process.exit(0)
