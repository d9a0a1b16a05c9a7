// HTTP transport benchmark: the bridge over SSE + POST (`httpTransport`, what a Next.js app on `next start`
// uses) against the WebSocket transport, and what open event streams cost the server. Every figure is printed
// next to a baseline measured in the same run; nothing asserts, goals are printed beside the figures. Run with
// `pnpm --filter @toolmark/bench bench:http` (also part of `pnpm bench`).
//
// 1. Call round trip. One `@toolmark/server` (`serve`, 127.0.0.1, port 0, in-memory store) in this process,
//    two pages in this process too (a core registry with the bridge; one on `httpTransport` with the
//    `eventsource` package, one on `websocketTransport` with `ws`), each in its own conversation. A call is
//    `relay.request` → the page's tool → its result, timed in alternating batches (`compare`): the
//    WebSocket round trip is the baseline. The floor, timed in the same alternating batches: one bare SSE push
//    and one bare `fetch` POST on the same framework (Hono on @hono/node-server), a client in this process on
//    the same `eventsource` package answering each pushed event with a POST, and nothing else (no protocol, no
//    store, no registry). The floor carries the bytes of one real call: the SSE event (id and data) the page
//    received and the result it POSTed, noted on one call first, each push with a fresh call id of the same
//    length that the client parses and POSTs back. A second floor with a short id each way is printed beside it,
//    to show what carrying the call's bytes costs. Goals: within 1.2× of the floor that carries the call, and
//    within 2× of WebSocket where the floor allows.
// 2. Memory. The same server alone in a child process (http-transport-child.mjs: plain `node --expose-gc` on the
//    built packages, so neither this process's clients nor a TypeScript loader count):
//    1,000 conversations (baseline), then one open event stream each (the `ready` event read), then each page
//    connection's manifest (five tools): heap + external and RSS after GC at each stage.
import { fork } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { extname, join, normalize } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { type ServerType, serve as serveHono } from '@hono/node-server'
import { bridge } from '@toolmark/bridge'
import { httpTransport } from '@toolmark/bridge/http'
import { websocketTransport } from '@toolmark/bridge/websocket'
import { createToolmark, ok, type ToolManifestSummary } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { createToolmarkServer, type ToolmarkServer } from '@toolmark/server'
import { serve } from '@toolmark/server/node'
import { EventSource } from 'eventsource'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import { chromium } from 'playwright-core'
import WebSocket from 'ws'
import { compare } from './compare.ts'
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  HOST,
  kb,
  mb,
  ms,
  print,
  ROOT,
  row,
  step,
  times,
} from './relay/shared.ts'

const PAGES = 1000
const USER = 'bench-user'
const TOOLS: ToolManifestSummary[] = ['search', 'create', 'rename', 'delete', 'notes'].map((name) => ({
  name: `challenges.${name}`,
  llmName: `challenges_${name}`,
  title: `Challenges: ${name}`,
  description: `The ${name} tool of the challenges page, with a description of ordinary length for a tool.`,
  hints: name === 'search' || name === 'notes' ? { readOnly: true } : { consequential: true },
}))

/** The packages the page loads, served built from their `dist` under `/pkg/<folder>/`. */
const PAGE_PACKAGES = {
  '@toolmark/core': 'core',
  '@toolmark/bridge': 'bridge',
  '@toolmark/protocol': 'protocol',
}

/** An import map for the built packages: each export of their package.json → its `dist` file. */
async function importMap(): Promise<string> {
  const imports: Record<string, string> = {}
  for (const [name, folder] of Object.entries(PAGE_PACKAGES)) {
    const manifest = JSON.parse(await readFile(join(ROOT, 'packages', folder, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { default?: string }>
    }
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const file = typeof target === 'string' ? target : target.default
      if (file?.endsWith('.mjs')) imports[join(name, subpath)] = `/pkg/${folder}/${file.replace(/^\.\//, '')}`
    }
  }
  return JSON.stringify({ imports })
}

/**
 * The page Chromium opens: a core registry (the built packages, served from their dist) with one
 * read-only tool, and the bridge on the transport its URL names, for the conversation its URL names.
 */
const page = (
  map: string,
) => `<!doctype html><meta charset="utf-8"><title>bench</title><link rel="icon" href="data:,">
<script>globalThis.process = { env: { NODE_ENV: 'production' } } // what a bundler would replace</script>
<script type="importmap">${map}</script>
<script type="module">
import { createToolmark, ok } from '@toolmark/core'
import { bridge } from '@toolmark/bridge'
import { httpTransport } from '@toolmark/bridge/http'
import { websocketTransport } from '@toolmark/bridge/websocket'
const q = new URLSearchParams(location.search)
const conversation = q.get('conversation')
const tm = createToolmark()
tm.scope('challenges').register({
  name: 'search', description: 'Search the challenges by keyword.', hints: { readOnly: true },
  jsonSchema: { type: 'object', properties: { query: { type: 'string' } } },
  run: () => ok({ results: [{ id: 'c-chess', name: 'Chess Openings' }] }),
})
const transport = q.get('transport') === 'http'
  ? httpTransport({ streamUrl: '/toolmark/events?conversation=' + conversation, postUrl: '/toolmark/messages' })
  : websocketTransport({ url: location.origin.replace(/^http/, 'ws') + '/toolmark/ws?conversation=' + conversation })
tm.use(bridge({ transport }))
</script>`

const PAGE = page(await importMap())
const PACKAGES = join(ROOT, 'packages')

/** `/bench.html` and the built packages under `/pkg/` (only what no route matched reaches this). */
async function staticFiles(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname
  if (path === '/bench.html') return new Response(PAGE, { headers: { 'content-type': 'text/html' } })
  const file = normalize(join(PACKAGES, path.replace(/^\/pkg\//, '')))
  if (
    !path.startsWith('/pkg/') ||
    !file.startsWith(PACKAGES) ||
    !file.includes('/dist/') ||
    extname(file) !== '.mjs'
  )
    return new Response('not found', { status: 404 })
  return new Response(await readFile(file), { headers: { 'content-type': 'text/javascript' } })
}

/** The server both parts use: every request is the one bench user (no cookies to carry). */
function server(): ToolmarkServer {
  return createToolmarkServer({
    provider: { name: 'none', async *stream() {} },
    authenticate: () => USER,
    fallback: staticFiles,
    log: process.env.BENCH_DEBUG ? (line) => console.error(line) : () => {},
  })
}

async function createConversation(url: string): Promise<string> {
  const response = await fetch(`${url}/api/conversations`, { method: 'POST' })
  return ((await response.json()) as { id: string }).id
}

/** A `relay.request` of the page's search tool, counting what did not come back ok. */
function caller(toolmark: ToolmarkServer, failures: { n: number }) {
  return (conversationId: string) => async () => {
    const outcome = await toolmark.relay.request(
      { userId: USER, conversationId, toolCallId: 'bench' },
      { kind: 'call', tool: 'challenges.search', input: { query: 'chess' } },
    )
    if (outcome.result.status !== 'ok') failures.n++
  }
}

/** Resolves when a page load has bound `conversationId` (its first manifest). */
function bound(toolmark: ToolmarkServer, conversationId: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const off = toolmark.relay.on('rebound', (e) => {
      if (e.conversationId === conversationId) {
        off()
        resolve()
      }
    })
  })
}

/**
 * One call as the HTTP transport carried it: the SSE event the page received (its id and data) and the body it
 * POSTed back, with the call's id, so the floor can carry the same bytes.
 */
interface Carried {
  eventId: string
  data: string
  body: string
  callId: string
}

/**
 * The floor of a call's round trip over HTTP: a bare Hono app on @hono/node-server that pushes one SSE event and
 * resolves when the client's POST naming that event arrives. The client is an `eventsource` EventSource whose
 * handler parses the event and POSTs with Node's `fetch`. With `carried`, the event and the POST are the bytes of
 * one real call and its result (each push with a fresh id of the same length); without, the event is a short id
 * and the POST `{"id":…}`. Returns the round trip and a close.
 */
async function floor(
  carried?: Carried,
): Promise<{ roundTrip: () => Promise<void>; close: () => Promise<void> }> {
  const app = new Hono()
  const waiting = new Map<string, () => void>()
  let push: ((id: string) => Promise<void>) | undefined
  let opened: () => void = () => {}
  const open = new Promise<void>((resolve) => {
    opened = resolve
  })
  const stream = carried?.eventId.slice(0, carried.eventId.lastIndexOf(':'))
  app.get('/events', (c) =>
    streamSSE(c, async (sse) => {
      push = (id) =>
        carried
          ? sse.writeSSE({ id: `${stream}:${id}`, data: carried.data.replaceAll(carried.callId, id) })
          : sse.writeSSE({ data: id })
      opened()
      await new Promise<void>((resolve) => sse.onAbort(resolve))
    }),
  )
  app.post('/messages', async (c) => {
    const { id } = (await c.req.json()) as { id: string }
    waiting.get(id)?.()
    waiting.delete(id)
    return c.body(null, 204)
  })
  const server = await new Promise<{ server: ServerType; url: string }>((resolve) => {
    const s = serveHono({ fetch: app.fetch, port: 0, hostname: HOST }, (info) =>
      resolve({ server: s, url: `http://${HOST}:${info.port}` }),
    )
  })
  const source = new EventSource(`${server.url}/events`)
  source.onmessage = (event) => {
    const id = carried ? (JSON.parse(event.data) as { id: string }).id : event.data
    void fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: carried ? carried.body.replaceAll(carried.callId, id) : JSON.stringify({ id }),
    })
  }
  await open
  let n = 0
  const width = carried?.callId.length ?? 0
  return {
    roundTrip: () =>
      new Promise<void>((resolve) => {
        const id = String(++n).padStart(width, '0')
        waiting.set(id, resolve)
        void push?.(id)
      }),
    close: async () => {
      source.close()
      await new Promise<void>((resolve) => server.server.close(() => resolve()))
    },
  }
}

/**
 * One call's bytes over the HTTP transport: `call` made once while the page's `EventSource` (a {@link recording}
 * one) and the global `fetch` note what went down and what came back.
 */
async function carriedBy(call: () => Promise<void>, seen: { event?: MessageEvent }): Promise<Carried> {
  const real = globalThis.fetch
  let body: string | undefined
  globalThis.fetch = (input, init) => {
    if (init?.method === 'POST' && typeof init.body === 'string') body = init.body
    return real(input, init)
  }
  try {
    await call()
  } finally {
    globalThis.fetch = real
  }
  const event = seen.event
  if (!event || body === undefined) throw new Error('bench: the call carried over HTTP was not seen')
  const callId = (JSON.parse(event.data as string) as { id: string }).id
  return { eventId: event.lastEventId, data: event.data as string, body, callId }
}

/** An `EventSource` that notes the last `message` event it dispatched into `seen`. */
function recording(seen: { event?: MessageEvent }): typeof EventSource {
  return class extends EventSource {
    constructor(...args: ConstructorParameters<typeof EventSource>) {
      super(...args)
      this.addEventListener('message', (event) => {
        seen.event = event
      })
    }
  }
}

/** Part 1: the two transports' call round trip, in alternating batches, with pages in Node and in Chromium. */
async function roundTrip(): Promise<void> {
  const toolmark = server()
  const node = await serve(toolmark, { port: 0, host: HOST, log: () => {} })
  const url = node.url
  const failures = { n: 0 }
  const call = caller(toolmark, failures)
  try {
    // (a) Pages in this Node process: core registry + bridge, `eventsource` and Node's fetch, or `ws`.
    environment.setIsServer(false)
    const [overHttp, overWs] = [await createConversation(url), await createConversation(url)]
    const pages: Array<() => void> = []
    const page = (transport: Parameters<typeof bridge>[0]['transport']) => {
      const tm = createToolmark()
      tm.scope('challenges').register({
        name: 'search',
        description: 'Search the challenges by keyword.',
        jsonSchema: { type: 'object', properties: { query: { type: 'string' } } },
        hints: { readOnly: true },
        run: () => ok({ results: [{ id: 'c-chess', name: 'Chess Openings' }] }),
      })
      // One clientId per page load (two pages share this process, so the default per-tab id would be shared).
      const dispose = tm.use(bridge({ transport, clientId: crypto.randomUUID() }))
      if (dispose) pages.push(dispose)
    }
    step('Node pages: httpTransport and websocketTransport')
    const seen: { event?: MessageEvent } = {}
    const ready = Promise.all([bound(toolmark, overHttp), bound(toolmark, overWs)])
    page(
      httpTransport({
        streamUrl: `${url}/toolmark/events?conversation=${overHttp}`,
        postUrl: `${url}/toolmark/messages`,
        baseUrl: url,
        EventSource: recording(seen),
      }),
    )
    page(
      websocketTransport({
        url: `${url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${overWs}`,
        WebSocket,
      }),
    )
    await ready
    const [http, ws] = await compare(call(overHttp), call(overWs), 200, 10)
    row(
      'call round trip, HTTP transport, page in Node',
      ms(http),
      `${ms(ws)} (WebSocket)`,
      times(http, ws),
      '≤ 2×',
    )
    // The floors, in alternating batches with the HTTP transport's round trip: the goal's carries the bytes of
    // one real call and its result; the other, a short id each way, shows what those bytes cost.
    const carried = await carriedBy(call(overHttp), seen)
    for (const bytes of [carried, undefined]) {
      const bare = await floor(bytes)
      try {
        const [ours, least] = await compare(call(overHttp), bare.roundTrip, 200, 10)
        row(
          'call round trip, HTTP transport, page in Node',
          ms(ours),
          bytes
            ? `${ms(least)} (floor: bare SSE push + fetch POST, Hono, the call's ${bytes.data.length} B down and ${bytes.body.length} B up)`
            : `${ms(least)} (bare SSE push + fetch POST of a short id each way)`,
          times(ours, least),
          bytes ? '≤ 1.2×' : '',
        )
        if (bytes)
          row(
            'floor ÷ WebSocket round trip (what 2× of WebSocket would need)',
            times(least, ws),
            '',
            least / ws > 2 ? 'the floor itself is over 2×: the 1.2× floor goal applies' : 'both goals apply',
          )
      } finally {
        await bare.close()
      }
    }
    for (const dispose of pages) dispose()
    environment.setIsServer(undefined)

    // (b) Pages in Chromium: the built core, the browser's EventSource and fetch, or its WebSocket.
    step('Chromium pages: httpTransport and websocketTransport')
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
      headless: true,
    })
    try {
      const [inHttp, inWs] = [await createConversation(url), await createConversation(url)]
      const loaded = Promise.all([bound(toolmark, inHttp), bound(toolmark, inWs)])
      const context = await browser.newContext()
      for (const [transport, conversation] of [
        ['http', inHttp],
        ['websocket', inWs],
      ] as const) {
        const tab = await context.newPage()
        if (process.env.BENCH_DEBUG) {
          tab.on('console', (m) => console.error(`[${transport}] ${m.text()}`))
          tab.on('pageerror', (e) => console.error(`[${transport}] ${e.message}`))
          tab.on('requestfailed', (r) => console.error(`[${transport}] failed ${r.url()}`))
          tab.on(
            'response',
            (r) => r.status() >= 400 && console.error(`[${transport}] ${r.status()} ${r.url()}`),
          )
        }
        await tab.goto(`${url}/bench.html?transport=${transport}&conversation=${conversation}`)
      }
      await loaded
      const [bHttp, bWs] = await compare(call(inHttp), call(inWs), 200, 10)
      row(
        'call round trip, HTTP transport, page in Chromium',
        ms(bHttp),
        `${ms(bWs)} (WebSocket)`,
        times(bHttp, bWs),
        '≤ 2×',
      )
    } finally {
      await browser.close()
    }
    if (failures.n > 0) console.log(`note: ${failures.n} calls did not return ok`)
  } finally {
    await toolmark.close()
    await node.close()
  }
}

interface Usage {
  rss: number
  heap: number
}

/** Part 2 (parent): drives the child server through its three stages. */
async function memory(): Promise<void> {
  const child = fork(fileURLToPath(new URL('./http-transport-child.mjs', import.meta.url)), [], {
    execArgv: ['--expose-gc'],
  })
  const replies: Array<(message: unknown) => void> = []
  child.on('message', (message) => replies.shift()?.(message))
  const ask = <T>(op: string): Promise<T> =>
    new Promise((resolve) => {
      replies.push(resolve as (message: unknown) => void)
      child.send({ op })
    })
  const { url } = await ask<{ url: string }>('url')
  const streams: Array<{ abort: AbortController; id: string }> = []
  try {
    step(`${PAGES} conversations`)
    const conversations: string[] = []
    for (let i = 0; i < PAGES; i++) conversations.push(await createConversation(url))
    const idle = await ask<Usage>('measure')

    step(`${PAGES} open event streams`)
    for (const conversation of conversations) {
      const abort = new AbortController()
      const response = await fetch(`${url}/toolmark/events?conversation=${conversation}`, {
        signal: abort.signal,
      })
      const reader = response.body!.getReader()
      let text = ''
      while (!text.includes('\n\n')) {
        const chunk = await reader.read()
        if (chunk.done)
          throw new Error(`event stream ${response.status} ended before its ready event: ${text}`)
        text += new TextDecoder().decode(chunk.value)
      }
      const id = /"stream":"([^"]+)"/.exec(text)?.[1] ?? ''
      streams.push({ abort, id })
    }
    const open = await ask<Usage>('measure')

    step(`${PAGES} manifests (${TOOLS.length} tools each)`)
    let clientId = 0
    for (const { id } of streams) {
      await fetch(`${url}/toolmark/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolmark-stream': id },
        body: JSON.stringify({
          protocol: 1,
          type: 'manifest',
          clientId: `page-${clientId++}`,
          rev: 1,
          tools: TOOLS,
        }),
      })
    }
    await sleep(200)
    const pages = await ask<Usage>('measure')
    const bound = await ask<{ bound: number }>('bound')

    const perStream = (open.heap - idle.heap) / PAGES
    row(
      'server heap + external per open event stream',
      kb(perStream),
      `idle server ${mb(idle.heap)}`,
      `RSS ${kb((open.rss - idle.rss) / PAGES)} per stream`,
      '≤ 50 KiB',
    )
    row(
      `server RSS with ${PAGES} open pages (stream + manifest)`,
      mb(pages.rss),
      `idle ${mb(idle.rss)}`,
      `+${mb(pages.rss - idle.rss)} (${times(pages.rss, idle.rss)})`,
      '≤ 100 MB',
    )
    if (bound.bound !== PAGES) console.log(`note: ${bound.bound} of ${PAGES} page loads were bound`)
  } finally {
    for (const { abort } of streams) abort.abort()
    await ask('close')
    child.kill()
  }
}

{
  console.log(`Node ${process.version}, ${new Date().toISOString()}, HTTP transport bench (loopback)`)
  try {
    await roundTrip()
    await memory()
  } catch (error) {
    console.error(error)
    process.exitCode = 1
  } finally {
    print()
  }
}
