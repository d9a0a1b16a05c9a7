import { type CallToolResult, Client, InMemoryTransport } from '@modelcontextprotocol/client'
import { createToolmark, ok } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import { mcpPairing, type PairingStatus } from '../page/index.ts'
import { startRelay } from '../relay.ts'
import { cleanupAfterEach, ORIGIN, PageSocket, tick } from './support/node-page.ts'

/*
 * A tool's `callers` option seen from a desktop MCP client: the real SDK Client (2.4) on an
 * in-memory transport to the relay, and a page in Node (`ws`) with a real registry and mcpPairing().
 */

const cleanups = cleanupAfterEach()

describe('callers: tools hidden from desktop MCP clients', () => {
  it('a tool whose callers leave out mcp is neither listed nor callable; the others are', async () => {
    const relay = await startRelay({ allowedOrigins: [ORIGIN], port: 0, log: () => {} })
    cleanups.push(() => relay.close())
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair()
    await relay.connect(serverEnd)
    const client = new Client({ name: 'Claude Desktop', version: '1.2.3' })
    await client.connect(clientEnd)
    cleanups.push(() => client.close())

    const tm = createToolmark({ dev: false, live: true })
    const runs: string[] = []
    const read = (name: string) => () => {
      runs.push(name)
      return ok(name)
    }
    tm.register({
      name: 'notes.list',
      description: 'List notes.',
      hints: { readOnly: true },
      run: read('list'),
    })
    tm.register({
      name: 'notes.export',
      description: 'Export every note.',
      hints: { readOnly: true },
      callers: ['inapp'],
      run: read('export'),
    })
    tm.register({
      name: 'notes.search',
      description: 'Search notes.',
      hints: { readOnly: true },
      callers: ['mcp', 'webmcp'],
      run: read('search'),
    })
    let status: PairingStatus = { state: 'connecting' }
    cleanups.push(
      tm.use(
        mcpPairing({
          url: `ws://127.0.0.1:${relay.port}`,
          storage: null,
          WebSocket: PageSocket as unknown as new (url: string) => globalThis.WebSocket,
          onStatus: (s) => {
            status = s
          },
        }),
      ),
    )
    const current = (): PairingStatus => status
    let s = current()
    while (s.state !== 'pairing') [, s] = [await tick(), current()]
    await client.callTool({ name: 'toolmark_pair', arguments: { code: s.code } })
    while (s.state !== 'paired') [, s] = [await tick(), current()]
    const tab = s.tab
    let names: string[] = []
    while (!names.some((n) => n.startsWith(`${tab}__`)))
      [names] = [(await client.listTools()).tools.map((t) => t.name), await tick()]

    expect(names.filter((n) => n.startsWith(`${tab}__`)).sort()).toEqual([
      `${tab}__notes__list`,
      `${tab}__notes__search`,
    ])
    const call = (name: string) =>
      client.callTool({ name: `${tab}__${name}`, arguments: {} }) as Promise<CallToolResult>
    expect(JSON.parse(((await call('notes__search')).content[0] as { text: string }).text)).toMatchObject({
      status: 'ok',
      data: 'search',
    })
    await expect(call('notes__export')).rejects.toThrow(`Unknown tool: ${tab}__notes__export`)
    expect(runs).toEqual(['search'])
  })
})
