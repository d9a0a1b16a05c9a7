import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  InMemoryTransport,
} from '@modelcontextprotocol/client'
import { type ConfirmRequest, createToolmark, ok } from '@toolmark/core'
import { chromium } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { mcpPairing, type PairingStatus } from '../page/index.ts'
import { ANSWER_TOOL, APP_MIME_TYPE, APPS_EXTENSION, CARD_TOOL, CARD_URI } from '../relay/apps.ts'
import { startRelay } from '../relay.ts'
import { cleanupAfterEach, ORIGIN, PageSocket, tick } from './support/node-page.ts'

/*
 * The MCP Apps confirmation card: the real SDK Client (2.4) declaring MCP Apps on an in-memory
 * transport to the relay, and a page in Node (`ws`) with a real registry and mcpPairing(). The test
 * plays both the model (tools/call of the page tool, and of the app-only tools without the card's
 * secrets) and the card (with the key from the card's HTML).
 */

const APPS: ClientCapabilities = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } }
const cleanups = cleanupAfterEach()

/** A relay, a client with `capabilities`, and a paired page with a destructive `challenge.delete`. */
async function setup(capabilities: ClientCapabilities, expiryMs?: number, revision?: '2026-07-28') {
  const relay = await startRelay({ allowedOrigins: [ORIGIN], port: 0, log: () => {} })
  cleanups.push(() => relay.close())
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair()
  await relay.connect(serverEnd)
  const client = new Client(
    { name: 'Claude Desktop', version: '1.2.3' },
    { capabilities, ...(revision ? { versionNegotiation: { mode: { pin: revision } } } : {}) },
  )
  await client.connect(clientEnd)
  cleanups.push(() => client.close())
  let status: PairingStatus = { state: 'connecting' }
  const pairing = mcpPairing({
    url: `ws://127.0.0.1:${relay.port}`,
    storage: null,
    WebSocket: PageSocket as unknown as new (url: string) => globalThis.WebSocket,
    onStatus: (s) => {
      status = s
    },
  })
  const inPage: ConfirmRequest[] = []
  const tm = createToolmark({
    dev: false,
    live: true,
    confirm: pairing.confirm((request) => {
      inPage.push(request)
      return { approved: false, reason: 'in-page card' }
    }),
    ...(expiryMs ? { confirmExpiryMs: expiryMs } : {}),
  })
  const runs: number[] = []
  tm.register({
    name: 'challenge.delete',
    title: 'Delete challenge',
    description: 'Delete a challenge.',
    summary: (input) => `Delete challenge ${(input as { id: number }).id}`,
    jsonSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    hints: { destructive: true },
    run: (input) => {
      runs.push((input as { id: number }).id)
      return ok({ deleted: (input as { id: number }).id })
    },
  })
  tm.register({ name: 'challenge.list', description: 'List.', hints: { readOnly: true }, run: () => ok([]) })
  cleanups.push(tm.use(pairing))
  const current = (): PairingStatus => status
  let s = current()
  while (s.state !== 'pairing') [, s] = [await tick(), current()]
  await client.callTool({ name: 'toolmark_pair', arguments: { code: s.code } })
  while (s.state !== 'paired') [, s] = [await tick(), current()]
  while (!(await client.listTools()).tools.some((t) => t.name === 't1__challenge__delete')) await tick()
  return { client, runs, inPage, tm }
}

const call = (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  client.callTool({ name, arguments: args }, { timeout: 20_000 }) as Promise<CallToolResult>
const text = (r: CallToolResult): string => (r.content[0] as { text: string }).text

/** The card's key, as the card's HTML carries it. */
async function cardKey(client: Client): Promise<string> {
  const read = await client.readResource({ uri: CARD_URI })
  const html = (read.contents[0] as { text: string }).text
  return /var KEY = '([A-Za-z0-9_-]{43})'/.exec(html)![1]!
}

/** What the card does once rendered for the model's call: takes the confirmation waiting for it. */
async function takeCard(client: Client, key: string): Promise<Record<string, unknown>> {
  const card = await call(client, CARD_TOOL, { key, tool: 't1__challenge__delete' })
  expect(card.isError).toBeFalsy()
  return card.structuredContent as Record<string, unknown>
}

describe('MCP Apps confirmation card', () => {
  it('is listed and readable as a sandboxed mcp-app resource with a strict CSP and no external script', async () => {
    const { client } = await setup(APPS)
    expect(client.getServerCapabilities()?.extensions).toEqual({ [APPS_EXTENSION]: {} })
    const { resources } = await client.listResources()
    expect(resources).toEqual([expect.objectContaining({ uri: CARD_URI, mimeType: APP_MIME_TYPE })])
    const read = await client.readResource({ uri: CARD_URI })
    const content = read.contents[0] as { uri: string; mimeType: string; text: string; _meta: unknown }
    expect(content).toMatchObject({
      uri: CARD_URI,
      mimeType: 'text/html;profile=mcp-app',
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } },
    })
    const html = content.text
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-/)
    expect(csp).toContain("connect-src 'none'")
    expect(html).not.toMatch(/\ssrc=|https?:\/\/|<link|innerHTML/)
    expect(html.match(/<script>/g)).toHaveLength(1)

    // A confirming tool shows the card; the app-only tools are marked for the app only.
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get('t1__challenge__delete')?._meta).toEqual({ ui: { resourceUri: CARD_URI } })
    expect(byName.get('t1__challenge__list')?._meta).toBeUndefined()
    expect(byName.get(CARD_TOOL)?._meta).toEqual({ ui: { visibility: ['app'] } })
    expect(byName.get(ANSWER_TOOL)?._meta).toEqual({ ui: { visibility: ['app'] } })
  })

  it('is listed beside the page’s readable context: one resources/list, each readable', async () => {
    const { client, tm } = await setup(APPS)
    tm.context({ name: 'cart', description: 'The cart.', value: { items: 1 } })
    const uri = 'toolmark://t1/context/cart'
    while (!(await client.listResources()).resources.some((r) => r.uri === uri)) await tick()
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([CARD_URI, uri])
    expect((await client.readResource({ uri })).contents).toEqual([
      { uri, mimeType: 'application/json', text: '{"items":1}' },
    ])
    expect((await client.readResource({ uri: CARD_URI })).contents[0]?.mimeType).toBe(APP_MIME_TYPE)
  })

  it('a 2026-07-28 client declaring MCP Apps in its requests gets the card and approves through it', async () => {
    const { client, runs, inPage } = await setup(APPS, undefined, '2026-07-28')
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const { tools } = await client.listTools()
    expect(tools.find((t) => t.name === 't1__challenge__delete')?._meta).toEqual({
      ui: { resourceUri: CARD_URI },
    })
    const key = await cardKey(client)
    const pending = call(client, 't1__challenge__delete', { id: 5 })
    const card = await takeCard(client, key)
    expect(card).toMatchObject({ status: 'pending', tool: 'challenge.delete' })
    const answered = await call(client, ANSWER_TOOL, { token: card.token, approved: true })
    expect(answered.isError).toBeFalsy()
    expect(JSON.parse(text(await pending))).toMatchObject({ status: 'ok', data: { deleted: 5 } })
    expect(runs).toEqual([5])
    expect(inPage).toEqual([])
  })

  it('the card shows the in-page card’s content and approves once; a second answer is refused', async () => {
    const { client, runs, inPage } = await setup(APPS)
    const key = await cardKey(client)
    const pending = call(client, 't1__challenge__delete', { id: 7 })
    const card = await takeCard(client, key)
    expect(card).toMatchObject({
      status: 'pending',
      tool: 'challenge.delete',
      title: 'Delete challenge',
      destructive: true,
      undoable: false,
      changes: [],
      page: { tab: 't1', origin: ORIGIN },
    })
    expect(card.summary).toContain('Delete challenge 7')
    expect(card.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(runs).toEqual([])

    const answered = await call(client, ANSWER_TOOL, { token: card.token, approved: true })
    expect(answered.isError).toBeFalsy()
    expect(text(answered)).toBe('Approved: the page runs the call.')
    expect(JSON.parse(text(await pending))).toMatchObject({ status: 'ok', data: { deleted: 7 } })
    expect(runs).toEqual([7])

    const again = await call(client, ANSWER_TOOL, { token: card.token, approved: true })
    expect(again.isError).toBe(true)
    expect(text(again)).toContain('not open')
    await tick(50)
    expect(runs).toEqual([7])
    expect(inPage).toEqual([])
  })

  it('the model cannot approve: without the card’s key and token every app-only call is refused', async () => {
    const { client, runs } = await setup(APPS)
    const key = await cardKey(client)
    const pending = call(client, 't1__challenge__delete', { id: 3 })
    await tick(100)
    // The model calling the app-only tools (a host that ignored their visibility) has no key…
    const noKey = await call(client, CARD_TOOL, { key: 'x'.repeat(43), tool: 't1__challenge__delete' })
    expect(noKey.isError).toBe(true)
    expect(noKey.structuredContent).toBeUndefined()
    // …and no token: a guess is refused and the page is told nothing.
    for (const token of ['', 'guess', 'A'.repeat(43)]) {
      const guessed = await call(client, ANSWER_TOOL, { token, approved: true })
      expect(guessed.isError).toBe(true)
    }
    expect(runs).toEqual([])
    // The card still has it, untouched: a decline answers the model's call, nothing runs.
    const card = await takeCard(client, key)
    await call(client, ANSWER_TOOL, { token: card.token, approved: false })
    expect(JSON.parse(text(await pending))).toMatchObject({ status: 'cancelled', by: 'operator' })
    expect(runs).toEqual([])
  })

  it('a token past the confirmation’s expiry is refused and nothing runs', async () => {
    const { client, runs } = await setup(APPS, 300)
    const key = await cardKey(client)
    const pending = call(client, 't1__challenge__delete', { id: 4 })
    const card = await takeCard(client, key)
    await tick(450)
    const late = await call(client, ANSWER_TOOL, { token: card.token, approved: true })
    expect(late.isError).toBe(true)
    expect(JSON.parse(text(await pending)).status).not.toBe('ok')
    await tick(50)
    expect(runs).toEqual([])
  })

  it('in Chromium, sandboxed as a host renders it, the card shows the confirmation and the user approves', async () => {
    const { client, runs } = await setup(APPS)
    const html = ((await client.readResource({ uri: CARD_URI })).contents[0] as { text: string }).text
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    })
    cleanups.push(() => browser.close())
    const page = await browser.newPage()
    const blocked: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) blocked.push(m.text())
    })
    // The host: renders the card in a sandboxed iframe and proxies its tools/call to the server.
    await page.exposeFunction('hostCall', (name: string, args: Record<string, unknown>) =>
      call(client, name, args),
    )
    await page.setContent(
      '<iframe id="card" sandbox="allow-scripts" style="width:480px;height:400px"></iframe>',
    )
    const pending = call(client, 't1__challenge__delete', { id: 9 })
    await page.evaluate((srcdoc) => {
      const frame = document.getElementById('card') as HTMLIFrameElement
      const w = window as unknown as {
        hostCall(name: string, args: unknown): Promise<unknown>
        sizes: number[]
      }
      w.sizes = []
      window.addEventListener('message', async (event) => {
        if (event.source !== frame.contentWindow) return
        const m = event.data
        const reply = (result: unknown) =>
          frame.contentWindow!.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*')
        if (m.method === 'ui/initialize')
          reply({
            protocolVersion: '2026-01-26',
            hostInfo: { name: 'test-host', version: '1' },
            hostCapabilities: { serverTools: {} },
            hostContext: {
              toolInfo: { tool: { name: 't1__challenge__delete', inputSchema: { type: 'object' } } },
            },
          })
        else if (m.method === 'tools/call') reply(await w.hostCall(m.params.name, m.params.arguments))
        else if (m.method === 'ui/notifications/size-changed') w.sizes.push(m.params.height)
      })
      frame.srcdoc = srcdoc
    }, html)
    const card = page.frameLocator('#card')
    await card.getByRole('button', { name: 'Delete' }).waitFor({ timeout: 15_000 })
    const shown = await card.locator('#card').textContent()
    expect(shown).toContain('Confirm Delete challenge')
    expect(shown).toContain('Delete challenge 9')
    expect(shown).toContain(`${ORIGIN} (tab t1)`)
    expect(shown).toContain('This action cannot be undone.')
    expect(runs).toEqual([])
    await card.getByRole('button', { name: 'Delete' }).click()
    expect(JSON.parse(text(await pending))).toMatchObject({ status: 'ok', data: { deleted: 9 } })
    expect(runs).toEqual([9])
    await card.getByText('Approved: the page runs the call.').waitFor()
    expect(
      await page.evaluate(() => (window as unknown as { sizes: number[] }).sizes.length),
    ).toBeGreaterThan(0)
    expect(blocked).toEqual([])
  }, 30_000)

  it('a client without MCP Apps sees no card, no app-only tool and no UI metadata (as before)', async () => {
    const { client } = await setup({})
    expect((await client.listResources()).resources).toEqual([])
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).not.toContain(CARD_TOOL)
    expect(tools.find((t) => t.name === 't1__challenge__delete')?._meta).toBeUndefined()
    await expect(call(client, ANSWER_TOOL, { token: 'x', approved: true })).rejects.toThrow(
      `Unknown tool: ${ANSWER_TOOL}`,
    )
  })
})
