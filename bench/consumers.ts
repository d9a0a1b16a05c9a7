// Consumer benchmarks (webmcp, otel, the MCP relay): each figure next to a floor measured in the same
// run, as a ratio. Nothing asserts; goals are printed beside the figures. `pnpm bench` runs it.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import * as otelApi from '@opentelemetry/api'
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { type ModelContextLike, type WebMcpTool, webmcp } from '@toolmark/core/webmcp'
import { startRelay } from '@toolmark/mcp'
import { mcpPairing, type PairingStatus } from '@toolmark/mcp/page'
import { otel } from '@toolmark/otel'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { WebSocket } from 'ws'
import * as z from 'zod'
import { compare } from './compare.ts'

const rows: string[][] = []
const fmt = (ms: number): string => (ms < 1 ? `${(ms * 1000).toFixed(3)} µs` : `${ms.toFixed(3)} ms`)
function row(what: string, ms: number, floor: number | undefined, goal: string): void {
  rows.push([
    what,
    fmt(ms),
    floor === undefined ? '' : fmt(floor),
    floor === undefined ? '' : `${(ms / floor).toFixed(2)}×`,
    goal,
  ])
}
const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** A counting stand-in for `document.modelContext` (the browser's own cost is not in these figures). */
class CountingModelContext implements ModelContextLike {
  readonly tools = new Map<string, WebMcpTool>()
  registers = 0
  aborts = 0
  registerTool(tool: WebMcpTool, options?: { signal?: AbortSignal }): Promise<undefined> {
    this.registers++
    this.tools.set(tool.name, tool)
    options?.signal?.addEventListener('abort', () => {
      this.aborts++
      if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name)
    })
    return Promise.resolve(undefined)
  }
}

const schema = z.object({ query: z.string() })
const searchTool = {
  name: 'search',
  description: 'Search',
  input: schema,
  hints: { readOnly: true },
  run: ({ query }: { query: string }) => ok(query),
}

// ── webmcp(): sync of a revision with 40 tools, one changed ─────────────────────
{
  const ROUNDS = 400
  const revision = async (
    withConsumer: boolean,
  ): Promise<{ ms: number; registers: number; aborts: number }> => {
    const tm = createTestToolmark({ dev: false })
    for (let i = 0; i < 39; i++)
      tm.register({
        ...searchTool,
        name: `tool${i}`,
        input: z.object({ q: z.string(), n: z.number() }),
        run: () => ok(),
      })
    let handle = tm.register({ ...searchTool, name: 'changing' })
    const mc = new CountingModelContext()
    if (withConsumer) tm.use(webmcp({ modelContext: mc }))
    await tick()
    const base = { registers: mc.registers, aborts: mc.aborts }
    const times: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now()
      handle.dispose()
      handle = tm.register({ ...searchTool, name: 'changing', description: `Search, version ${i}` })
      await Promise.resolve() // the registry publishes (and webmcp syncs) on the next microtask
      await Promise.resolve()
      times.push(performance.now() - t0)
    }
    return {
      ms: median(times),
      registers: (mc.registers - base.registers) / ROUNDS,
      aborts: (mc.aborts - base.aborts) / ROUNDS,
    }
  }
  await revision(true) // warm up
  const without = await revision(false)
  const withSync = await revision(true)
  row('webmcp() revision, 40 tools, 1 changed (registry + sync)', withSync.ms, without.ms, '')
  row('webmcp() sync alone (difference)', Math.max(0, withSync.ms - without.ms), undefined, '≤ 0.2 ms')
  rows.push([
    'webmcp() calls per revision',
    `${withSync.registers} registerTool, ${withSync.aborts} abort`,
    '',
    '',
    '1 and 1',
  ])
}

// ── webmcp(): execute → result against tm.call ─────────────────────────────────
{
  const tm = createTestToolmark({ dev: false })
  tm.register(searchTool)
  const mc = new CountingModelContext()
  tm.use(webmcp({ modelContext: mc }))
  const tool = mc.tools.get('search')!
  const signal = new AbortController().signal
  const [direct, viaExecute] = await compare(
    () => tm.call('search', { query: 'robotics' }, { caller: 'webmcp', signal }),
    () => tool.execute({ query: 'robotics' }, { signal }),
  )
  row('webmcp() execute → ToolResult (without the browser)', viaExecute, direct, '≤ 1.5× tm.call')
}

// ── webmcp() in Chromium: executeTool round trip against an execute that answers at once ──
{
  const page = await build({
    stdin: {
      contents: `
        import { createToolmark, ok } from '@toolmark/core'
        import { webmcp } from '@toolmark/core/webmcp'
        const tm = createToolmark()
        tm.register({ name: 'tm_search', description: 'Search', jsonSchema: { type: 'object' }, hints: { readOnly: true }, run: () => ok(1) })
        tm.use(webmcp())
        await document.modelContext.registerTool({
          name: 'raw_search', description: 'Search', inputSchema: { type: 'object' },
          execute: async () => ({ status: 'ok', data: 1 }),
        })
        window.ready = true`,
      resolveDir: fileURLToPath(new URL('../packages/core', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    write: false,
    conditions: ['@toolmark/source'],
    logLevel: 'silent',
  })
  const js = page.outputFiles[0]!.text
  const server = createServer((req, res) => {
    const isJs = req.url === '/page.js'
    res.writeHead(200, { 'Content-Type': isJs ? 'text/javascript' : 'text/html' })
    res.end(isJs ? js : '<!doctype html><script type="module" src="/page.js"></script>')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--enable-features=WebMCP',
    ],
  })
  try {
    const tab = await browser.newPage()
    await tab.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
    await tab.waitForFunction(() => (window as { ready?: boolean }).ready === true)
    // A string, not a function: tsx would wrap a function's inner helpers in its own __name().
    const [raw, ours] = (await tab.evaluate(`(async () => {
      const mc = document.modelContext
      const tools = await mc.getTools()
      const rawTool = tools.find((t) => t.name === 'raw_search')
      const tmTool = tools.find((t) => t.name === 'tm_search')
      const batch = async (tool) => {
        const t0 = performance.now()
        for (let i = 0; i < 200; i++) await mc.executeTool(tool, {})
        return (performance.now() - t0) / 200
      }
      const a = []
      const b = []
      await batch(rawTool)
      await batch(tmTool)
      for (let r = 0; r < 9; r++) {
        a.push(await batch(rawTool))
        b.push(await batch(tmTool))
      }
      return [Math.min(...a), Math.min(...b)]
    })()`)) as [number, number]
    row('executeTool round trip via webmcp() (Chromium)', ours, raw, '≤ raw + 1.5× tm.call')
    row('webmcp() in the browser above a raw execute (difference)', Math.max(0, ours - raw), undefined, '')
  } finally {
    await browser.close()
    server.close()
  }
}

// ── otel(): cost per call with the API's no-op tracer provider ─────────────────
{
  const plain = createTestToolmark({ dev: false })
  plain.register(searchTool)
  const traced = createTestToolmark({ dev: false })
  traced.register(searchTool)
  traced.use(otel({ api: otelApi }))
  const [a, b] = await compare(
    () => plain.call('search', { query: 'robotics' }, { caller: 'inapp' }),
    () => traced.call('search', { query: 'robotics' }, { caller: 'inapp' }),
  )
  row('tm.call with otel() (no-op tracer provider)', b, a, '')
  row('otel() per call (difference)', Math.max(0, b - a), undefined, '≤ 2 µs')
}

// ── MCP relay: tools/call round trip on loopback ───────────────────────────────
{
  const ORIGIN = 'http://127.0.0.1:5173'
  const relay = await startRelay({ allowedOrigins: [ORIGIN], port: 0, log: () => {} })
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair()
  await relay.connect(serverEnd)
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(clientEnd)

  const tm = createTestToolmark({ dev: false })
  tm.register(searchTool)
  let status: PairingStatus = { state: 'connecting' }
  /** ws in Node, sending the page's Origin as a browser would. */
  class PageSocket extends WebSocket {
    constructor(url: string) {
      super(url, { origin: ORIGIN })
    }
  }
  tm.use(
    mcpPairing({
      url: `ws://127.0.0.1:${relay.port}`,
      storage: null,
      WebSocket: PageSocket as unknown as new (url: string) => globalThis.WebSocket,
      onStatus: (s) => {
        status = s
      },
    }),
  )
  const current = (): PairingStatus => status
  for (let s = current(); ; s = current()) {
    if (s.state === 'pairing') {
      await client.callTool({ name: 'toolmark_pair', arguments: { code: s.code } })
      break
    }
    await tick()
  }
  while (!(await client.listTools()).tools.some((t) => t.name === 't1__search')) await tick()

  const page: number[] = []
  const round: number[] = []
  for (let i = 0; i < 2200; i++) {
    let t0 = performance.now()
    await tm.call('search', { query: 'robotics' }, { caller: 'mcp' })
    const own = performance.now() - t0
    t0 = performance.now()
    await client.callTool({ name: 't1__search', arguments: { query: 'robotics' } })
    const rt = performance.now() - t0
    if (i >= 200) {
      page.push(own)
      round.push(rt)
    }
  }
  row('MCP relay tools/call round trip p50 (client → relay → page → back)', median(round), median(page), '')
  row(
    'MCP relay above the page’s own work, p50 (difference)',
    median(round) - median(page),
    undefined,
    '≤ 2 ms',
  )
  await client.close()
  await relay.close()
}

const widths = [0, 1, 2, 3, 4].map((i) =>
  Math.max(...[['what', 'figure', 'floor', 'ratio', 'goal'], ...rows].map((r) => r[i]!.length)),
)
const line = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')
console.log(`Consumers, Node ${process.version}, ${new Date().toISOString()}`)
console.log(line(['what', 'figure', 'floor', 'ratio', 'goal']))
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'))
for (const r of rows) console.log(line(r))
process.exit(0)
