import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { type Relay, startRelay } from '@toolmark/mcp'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.ts'
import { type DemoServer, startDemoServer } from './server.ts'

/*
 * The demo's tools called by agents outside the app: Chromium's own WebMCP (its own browser, launched
 * with --enable-features=WebMCP) and a desktop MCP client (the SDK's Client, connected in-process to the
 * relay library; the stdio CLI itself is tested in packages/mcp). Both confirm in the page.
 */

let browser: Browser
let demoServer: DemoServer
let relay: Relay
let client: Client
let page: Page

beforeAll(async () => {
  ;[browser, demoServer] = await Promise.all([
    chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--enable-features=WebMCP'] }),
    startDemoServer(inject('staticDir')),
  ])
  relay = await startRelay({ allowedOrigins: [demoServer.url], port: 0, log: () => {} })
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair()
  await relay.connect(serverEnd)
  client = new Client({ name: 'demo-e2e', version: '1.0.0' })
  await client.connect(clientEnd)
  page = await (await browser.newContext()).newPage()
  await page.goto(`${demoServer.url}/?mcpPort=${relay.port}`)
  await page.getByTestId('external-agents').waitFor()
})
afterAll(async () => {
  await client?.close()
  await relay?.close()
  await browser?.close()
  await demoServer?.close()
})

type Outcome = { value?: unknown; rejected?: string }
/** The browser's agent: `document.modelContext.executeTool` on the named tool. */
const webmcpCall = (name: string, input: unknown, on: Page = page): Promise<Outcome> =>
  on.evaluate(
    async ([n, i]) => {
      const mc = (
        document as unknown as {
          modelContext: {
            getTools(): Promise<Array<{ name: string }>>
            executeTool(t: unknown, i: unknown): Promise<string | null>
          }
        }
      ).modelContext
      const tool = (await mc.getTools()).find((t) => t.name === n)
      if (!tool) return { rejected: 'no such tool' }
      try {
        const out = await mc.executeTool(tool, i)
        return { value: out === null ? null : JSON.parse(out) }
      } catch (e) {
        return { rejected: (e as Error).name }
      }
    },
    [name, input] as const,
  )
const webmcpNames = (on: Page = page): Promise<string[]> =>
  on.evaluate(async () =>
    (
      await (
        document as unknown as { modelContext: { getTools(): Promise<Array<{ name: string }>> } }
      ).modelContext.getTools()
    ).map((t) => t.name),
  )

/**
 * Approves the card of `caller` after checking what the user sees when it appears: it is inside the
 * viewport without scrolling, and it is the chat's card (Reject first, one primary button).
 */
async function approveExternal(caller: 'webmcp' | 'mcp', on: Page = page): Promise<void> {
  const card = on.locator(`[data-testid="external-confirm"][data-caller="${caller}"]`)
  await card.waitFor()
  const viewport = on.viewportSize()!
  const shown = await card.locator('[data-testid="confirm-card"]').evaluate((el) => {
    const { top, bottom, left, right } = el.getBoundingClientRect()
    const buttons = [...el.querySelectorAll('button')]
    return {
      top,
      bottom,
      left,
      right,
      buttons: buttons.map((b) => b.textContent),
      primary: buttons.filter((b) => !b.classList.contains('secondary')).length,
    }
  })
  // Within a pixel: the boxes have fractional edges.
  expect(shown.top).toBeGreaterThanOrEqual(-1)
  expect(shown.bottom).toBeLessThanOrEqual(viewport.height + 1)
  expect(shown.left).toBeGreaterThanOrEqual(-1)
  expect(shown.right).toBeLessThanOrEqual(viewport.width + 1)
  expect(shown.buttons).toEqual(['Reject', 'Approve'])
  expect(shown.primary).toBe(1)
  await card.getByRole('button', { name: 'Approve' }).click()
  await card.waitFor({ state: 'detached' })
}

test('the browser’s WebMCP agent lists and calls the demo’s tools; a create waits for Approve in the page', async () => {
  await expect.poll(() => webmcpNames()).toContain('challenges.search')
  expect(await page.getByTestId('webmcp-status').textContent()).toContain('published')
  const found = await webmcpCall('challenges.search', { query: 'chess' })
  expect(JSON.stringify(found.value)).toContain('Chess Openings')
  expect(await webmcpCall('challenges.create', { name: '' })).toMatchObject({ value: { status: 'invalid' } })

  const created = webmcpCall('challenges.create', { name: 'Robotics' })
  await approveExternal('webmcp')
  expect(await created).toMatchObject({ value: { status: 'ok', data: { name: 'Robotics' } } })
})

test('a desktop MCP client pairs with the code shown in the page, then calls the same tools', async () => {
  await page.getByTestId('mcp-pair').click()
  const code = (await page.getByTestId('mcp-code').textContent())!.trim()
  expect(code).toMatch(/^\d{4}-\d{4}$/)
  const paired = (await client.callTool({ name: 'toolmark_pair', arguments: { code } })) as CallToolResult
  expect(paired.isError).toBeFalsy()
  await page.getByTestId('mcp-paired').waitFor()
  const names = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name)
  await expect.poll(names).toContain('t1__challenges__search')

  const found = (await client.callTool({
    name: 't1__challenges__search',
    arguments: { query: 'robotics' },
  })) as CallToolResult
  expect(found.structuredContent).toMatchObject({ status: 'ok', data: { results: [{ name: 'Robotics' }] } })

  const created = client.callTool(
    { name: 't1__challenges__create', arguments: { name: 'Chess Club' } },
    undefined,
    {
      timeout: 15_000,
    },
  ) as Promise<CallToolResult>
  await approveExternal('mcp')
  expect((await created).structuredContent).toMatchObject({ status: 'ok', data: { name: 'Chess Club' } })
  await expect.poll(() => page.getByText('Chess Club').count()).toBeGreaterThan(0)
})

test('the devtools panel shows what WebMCP published and the MCP pairing, and why a WebMCP call did not run', async () => {
  await page.keyboard.press('Alt+Shift+KeyD')
  const panel = page.getByRole('complementary', { name: 'Toolmark devtools' })
  await panel.getByRole('tab', { name: 'Consumers' }).click()
  const consumers = panel.getByRole('tabpanel', { name: 'Consumers' })
  const webmcp = consumers.locator('[data-consumer=webmcp]')
  await expect
    .poll(() => webmcp.textContent())
    .toMatch(/^webmcp: published; tools: .*challenges\.search.*; duplicates: none$/)
  expect(await consumers.locator('[data-consumer=mcp]').textContent()).toBe('mcp: paired; tab: t1')
  expect(await consumers.locator('[data-consumer=bridge]').textContent()).toMatch(/^bridge: open; clientId: /)

  // The browser's own agent sends input the tool refuses: the panel says why, with the issue.
  expect(await webmcpCall('challenges.create', { name: '' })).toMatchObject({ value: { status: 'invalid' } })
  await panel.getByRole('tab', { name: 'Calls' }).click()
  const call = panel.locator('details', { hasText: 'challenges.create by webmcp: invalid' }).first()
  await call.locator('summary').click()
  await call.getByText(/The input failed validation \(1 issue\); the tool did not run\./).waitFor()
  await page.keyboard.press('Escape')
  await panel.waitFor({ state: 'detached' })
})

test('with ?devtools=webmcp the devtools answer the browser as a WebMCP debugging tool', async () => {
  const debug = await page.context().newPage()
  await debug.goto(`${demoServer.url}/?devtools=webmcp`)
  await debug.getByTestId('external-agents').waitFor()
  const listed = async () =>
    debug.evaluate(async () => {
      const mc = (
        document as unknown as {
          modelContext: {
            getTools(): Promise<Array<{ name: string; annotations?: { debugging?: boolean } }>>
          }
        }
      ).modelContext
      return (await mc.getTools()).find((t) => t.name === 'toolmark_devtools')?.annotations ?? null
    })
  await expect.poll(listed).toMatchObject({ debugging: true, readOnlyHint: true })
  await expect.poll(() => webmcpNames(debug)).toContain('challenges.search')
  expect(await webmcpCall('challenges.create', { name: '' }, debug)).toMatchObject({
    value: { status: 'invalid' },
  })
  const answer = (await webmcpCall('toolmark_devtools', {}, debug)).value as {
    consumers: Record<string, { state: string }>
    tools: Array<{ name: string; callers: string[] }>
    calls: Array<{ tool: string; caller: string; decision: string; reason: string }>
  }
  expect(answer.consumers.bridge!.state).toBe('open')
  expect(answer.consumers.webmcp!.state).toBe('published')
  expect(answer.tools.find((t) => t.name === 'challenges.search')!.callers).toContain('webmcp')
  // Not a registry tool: no caller's manifest lists it.
  expect(answer.tools.map((t) => t.name)).not.toContain('toolmark_devtools')
  expect(answer.calls[0]).toMatchObject({ tool: 'challenges.create', caller: 'webmcp', decision: 'invalid' })
  expect(answer.calls[0]!.reason).toBe('The input failed validation (1 issue); the tool did not run.')
  await debug.close()
})

test('on a phone (390 × 844) the external card shows in view, Reject first, and Approve creates', async () => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  })
  try {
    const phone = await context.newPage()
    await phone.goto(`${demoServer.url}/?mcpPort=${relay.port}`)
    await expect.poll(() => webmcpNames(phone)).toContain('challenges.create')
    const created = webmcpCall('challenges.create', { name: 'Kites' }, phone)
    await approveExternal('webmcp', phone)
    expect(await created).toMatchObject({ value: { status: 'ok', data: { name: 'Kites' } } })
  } finally {
    await context.close()
  }
})
