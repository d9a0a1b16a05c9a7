import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Browser, chromium, type Frame, type Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type StaticServer, startStaticServer } from '../../../../../tests/support/static-server.ts'

/*
 * Real Chromium with its WebMCP implementation (--enable-features=WebMCP), no polyfill. The app runs
 * in an iframe (app.html, bundled from support/page.ts) so that it can navigate; the test acts as the
 * agent in the top document through document.modelContext.getTools()/executeTool().
 */

const APP = '<!doctype html><title>app</title><script type="module" src="/page.js"></script>'
const AGENT = `<!doctype html><title>agent</title><body><script>
window.agent = {
  async tools() {
    const tools = await document.modelContext.getTools()
    // Chromium 149–153 (and some 154 builds) give inputSchema as a JSON string, later ones an object.
    return tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      annotations: t.annotations,
      inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema,
    }))
  },
  async execute(name, input) {
    const tool = (await document.modelContext.getTools()).find((t) => t.name === name)
    if (!tool) throw new Error('no tool ' + name)
    try {
      const out = await document.modelContext.executeTool(tool, input)
      return { value: out === null ? null : JSON.parse(out) }
    } catch (e) {
      return { rejected: e.name }
    }
  },
  start(name, input) {
    window.running = agent.execute(name, input)
  },
}
</script><iframe id="app" src="/app.html"></iframe></body>`

let browser: Browser
let page: Page
let server: StaticServer

type AgentTool = {
  name: string
  title: string
  description: string
  annotations: Record<string, boolean>
  inputSchema: Record<string, unknown>
}
type Outcome = { value?: unknown; rejected?: string }

const tools = (): Promise<AgentTool[]> =>
  page.evaluate(() => (window as unknown as { agent: { tools(): Promise<AgentTool[]> } }).agent.tools())
const execute = (name: string, input: unknown): Promise<Outcome> =>
  page.evaluate(
    ([n, i]) =>
      (window as unknown as { agent: { execute(n: string, i: unknown): Promise<Outcome> } }).agent.execute(
        n,
        i,
      ),
    [name, input] as const,
  )
const appFrame = (): Frame => page.frames().find((f) => f !== page.mainFrame())!
const app = <T>(fn: string): Promise<T> => appFrame().evaluate(fn) as Promise<T>
const names = async (): Promise<string[]> => (await tools()).map((t) => t.name)
/** Polls the agent's tool list until `pred` holds (the browser publishes asynchronously). */
async function until(pred: (names: string[]) => boolean, timeoutMs = 5000): Promise<string[]> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const now = await names().catch(() => [])
    if (pred(now)) return now
    if (Date.now() > end) throw new Error(`tool list never matched: ${JSON.stringify(now)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

async function openAgent(path = '/agent.html'): Promise<void> {
  await page.goto(`${server.origin}${path}`)
  await appFrame().waitForFunction(() => (window as { ready?: boolean }).ready === true)
  await until((n) => n.length > 0)
}

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./support/page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    conditions: ['@toolmark/source'],
    logLevel: 'silent',
  })
  server = await startStaticServer({
    '/agent.html': AGENT,
    '/app.html': APP,
    '/next.html': APP,
    '/denied.html': { body: APP, headers: { 'Permissions-Policy': 'tools=()' } },
    '/page.js': bundle.outputFiles[0]!.text,
  })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      '--enable-features=WebMCP',
    ],
  })
  page = await browser.newPage()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('webmcp() in Chromium', () => {
  beforeEach(() => openAgent())

  it('lists the visible tools with title, schema and annotations', async () => {
    const listed = await tools()
    expect(listed.map((t) => t.name)).toEqual(['create', 'go', 'leave', 'search'])
    const search = listed.find((t) => t.name === 'search')!
    expect(search).toMatchObject({
      title: 'Search',
      description: 'Search challenges by keyword.',
      annotations: {
        readOnlyHint: true,
        untrustedContentHint: true,
        consequentialHint: false,
        debugging: false,
      },
      inputSchema: {
        type: 'object',
        required: ['query'],
        properties: { query: { type: 'string', minLength: 1 } },
      },
    })
    expect(listed.find((t) => t.name === 'create')!.annotations).toEqual({
      readOnlyHint: false,
      untrustedContentHint: false,
      consequentialHint: true,
      debugging: false,
    })
  })

  it('validates the call (the browser does not) and answers with the ToolResult', async () => {
    expect(await execute('search', { query: 'robots' })).toEqual({
      value: { status: 'ok', data: { results: ['robots challenge'] } },
    })
    expect(await execute('search', { query: '', extra: 1 })).toEqual({
      value: {
        status: 'invalid',
        issues: [
          { path: 'query', message: expect.any(String) },
          { path: 'extra', message: expect.any(String) },
        ],
      },
    })
    expect(await app<string[]>('app.runs')).toEqual(['search:robots'])
  })

  it('a consequential call waits for the page’s inline confirmation; rejected, it never runs', async () => {
    await page.evaluate(() =>
      (window as unknown as { agent: { start(n: string, i: unknown): void } }).agent.start('create', {
        name: 'Robots',
      }),
    )
    await appFrame().waitForFunction(
      () => (window as unknown as { app: { pending(): unknown[] } }).app.pending().length === 1,
    )
    expect(await app('app.pending()')).toEqual([
      { confirmId: expect.any(String), tool: 'create', summary: 'Create challenge "Robots"' },
    ])
    await app('app.reject(app.pending()[0].confirmId)')
    expect(await page.evaluate(() => (window as unknown as { running: Promise<Outcome> }).running)).toEqual({
      value: { status: 'cancelled', by: 'operator' },
    })
    expect(await app<string[]>('app.runs')).toEqual([])

    await page.evaluate(() =>
      (window as unknown as { agent: { start(n: string, i: unknown): void } }).agent.start('create', {
        name: 'Robots',
      }),
    )
    await appFrame().waitForFunction(
      () => (window as unknown as { app: { pending(): unknown[] } }).app.pending().length === 1,
    )
    await app('app.approve(app.pending()[0].confirmId)')
    expect(await page.evaluate(() => (window as unknown as { running: Promise<Outcome> }).running)).toEqual({
      value: { status: 'ok', data: { id: 7 } },
    })
    expect(await app<string[]>('app.runs')).toEqual(['create:Robots'])
  })

  it('disposal removes the tools; attaching again brings them back', async () => {
    await app('app.detach()')
    await until((n) => n.length === 0)
    expect(await names()).toEqual([])
    await app('app.attach()')
    await until((n) => n.length === 4)
    expect(await app('app.errors')).toEqual([])
  })

  it('a when scope shows and hides its tools', async () => {
    await app('app.setModal(true)')
    await until((n) => n.includes('modal.close'))
    expect(await execute('modal.close', {})).toEqual({ value: { status: 'ok' } })
    await app('app.setModal(false)')
    await until((n) => !n.includes('modal.close'))
    expect(await names()).toEqual(['create', 'go', 'leave', 'search'])
  })

  it('a navigation tool answers before it navigates; the next page publishes its own tools', async () => {
    expect(await execute('go', {})).toEqual({ value: { status: 'ok', data: { navigating: true } } })
    await until((n) => n.join() === 'arrived')
  })

  it('a tool that navigates before answering gives the agent no result (null, or UnknownError in Chromium 156)', async () => {
    const outcome = await execute('leave', {})
    expect(outcome.value === null || outcome.rejected === 'UnknownError').toBe(true)
    await until((n) => n.includes('arrived'))
    expect(await app('app.unhandled')).toEqual([])
  })
})

describe('webmcp() under Permissions-Policy: tools=()', () => {
  it('reports one transport_failed event, publishes nothing and leaves no unhandled rejection', async () => {
    await page.goto(`${server.origin}/agent.html`)
    await page.evaluate(() => {
      ;(document.getElementById('app') as HTMLIFrameElement).src = '/denied.html'
    })
    await page.waitForFunction(() => {
      const w = (document.getElementById('app') as HTMLIFrameElement).contentWindow as unknown as {
        location: Location
        app?: { errors: unknown[] }
      }
      return w.location.pathname === '/denied.html' && (w.app?.errors.length ?? 0) > 0
    })
    await new Promise((r) => setTimeout(r, 100))
    expect(await app('app.errors')).toEqual([
      {
        code: 'transport_failed',
        message: 'WebMCP is not allowed in this document (Permissions-Policy "tools")',
      },
    ])
    expect(await app('app.unhandled')).toEqual([])
    expect(await names()).toEqual([])
  })
})
