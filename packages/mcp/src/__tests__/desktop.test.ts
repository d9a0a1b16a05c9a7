import {
  type CallToolResult,
  Client,
  type ElicitResult,
  InMemoryTransport,
} from '@modelcontextprotocol/client'
import {
  type CallMeta,
  type ConfirmRequest,
  createConfirmQueue,
  createToolmark,
  ok,
  type Toolmark,
} from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import {
  type McpConfirmRequest,
  type McpPairingOptions,
  mcpPairing,
  type PairingStatus,
} from '../page/index.ts'
import { type Relay, startRelay } from '../relay.ts'
import { cleanupAfterEach, ORIGIN, PageSocket, tick } from './support/node-page.ts'

/*
 * Desktop agents as callers, in process: the real SDK Client (2.4) on an in-memory transport to the
 * relay, and pages in Node (`ws`, sending the page's Origin) with a real registry and mcpPairing().
 * The client speaks 2025-11-25 (the SDK's default, `initialize`) unless a test pins 2026-07-28.
 */

const cleanups = cleanupAfterEach()

type Elicit = (params: { message: string; requestedSchema: unknown }) => Promise<ElicitResult> | ElicitResult

/** The protocol revision a test client speaks. */
type Revision = '2025-11-25' | '2026-07-28'

async function startClient(
  relay: Relay,
  elicit?: Elicit,
  name = 'Claude Desktop',
  revision: Revision = '2025-11-25',
  options: { autoFulfill?: boolean } = {},
): Promise<Client> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair()
  await relay.connect(serverEnd)
  const client = new Client(
    { name, version: '1.2.3' },
    {
      ...(elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      ...(options.autoFulfill === false ? { inputRequired: { autoFulfill: false } } : {}),
    },
  )
  if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request.params as never))
  await client.connect(clientEnd)
  expect(client.getNegotiatedProtocolVersion()).toBe(revision)
  cleanups.push(() => client.close())
  return client
}

interface Page {
  tm: Toolmark
  runs: string[]
  cards: McpConfirmRequest[]
  metas: Array<CallMeta | undefined>
  queue: ReturnType<typeof createConfirmQueue>
  status: () => PairingStatus
  dispose: () => void
}

/** A page with a destructive `challenge.delete`, an expiry of `expiryMs`, paired through `client`. */
async function openPage(
  relay: Relay,
  client: Client,
  options: {
    expiryMs?: number
    confirmInClient?: McpPairingOptions['confirmInClient']
    title?: string
  } = {},
): Promise<Page> {
  const queue = createConfirmQueue()
  const cards: McpConfirmRequest[] = []
  const pairing = mcpPairing({
    url: `ws://127.0.0.1:${relay.port}`,
    storage: null,
    WebSocket: PageSocket as unknown as new (url: string) => globalThis.WebSocket,
    onStatus: (s) => {
      status = s
    },
    ...(options.confirmInClient === undefined ? {} : { confirmInClient: options.confirmInClient }),
    ...(options.title === undefined ? {} : { title: () => options.title as string }),
  })
  const tm = createToolmark({
    dev: false,
    live: true,
    confirm: pairing.confirm((request) => {
      cards.push(request)
      return queue.handler(request as ConfirmRequest)
    }),
    ...(options.expiryMs ? { confirmExpiryMs: options.expiryMs } : {}),
  })
  const runs: string[] = []
  tm.register({
    name: 'challenge.delete',
    title: 'Delete challenge',
    description: 'Delete a challenge.',
    summary: (input) => `Delete challenge ${(input as { id: number }).id}`,
    jsonSchema: {
      type: 'object',
      properties: { id: { type: 'number', maximum: 100 }, name: { type: 'string' } },
      required: ['id'],
    },
    hints: { destructive: true },
    run: (input) => {
      runs.push(`delete:${(input as { id: number }).id}`)
      return ok({ deleted: (input as { id: number }).id })
    },
  })
  const metas: Array<CallMeta | undefined> = []
  tm.use((host) => host.observe({ call: (_e, meta) => void metas.push(meta) }))
  let status: PairingStatus = { state: 'connecting' }
  const dispose = tm.use(pairing)
  cleanups.push(dispose)
  const current = (): PairingStatus => status
  const page = { tm, runs, cards, metas, queue, status: current, dispose }
  let s = current()
  while (s.state !== 'pairing') [, s] = [await tick(), current()]
  await client.callTool({ name: 'toolmark_pair', arguments: { code: s.code } })
  while (s.state !== 'paired') [, s] = [await tick(), current()]
  const tab = s.tab
  while (!(await client.listTools()).tools.some((t) => t.name.startsWith(`${tab}__`))) await tick()
  return page
}

async function relayWith(options: { callTimeoutMs?: number } = {}): Promise<Relay> {
  const relay = await startRelay({ allowedOrigins: [ORIGIN], port: 0, log: () => {}, ...options })
  cleanups.push(() => relay.close())
  return relay
}

const result = (r: CallToolResult): { status: string; [k: string]: unknown } =>
  JSON.parse((r.content[0] as { text: string }).text)
const call = (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  client.callTool({ name, arguments: args }, { timeout: 10_000 })

describe.each(['2025-11-25', '2026-07-28'] as const)(
  'confirmation in the MCP client (elicitation), protocol %s',
  (revision) => {
    it('accept runs the call once, asked with the card’s content; no in-page card', async () => {
      const relay = await relayWith()
      const asked: Array<{ message: string; requestedSchema: unknown }> = []
      const client = await startClient(
        relay,
        (params) => {
          asked.push(params)
          return { action: 'accept', content: {} }
        },
        'Claude Desktop',
        revision,
      )
      const page = await openPage(relay, client)
      const r = await call(client, 't1__challenge__delete', { id: 3, name: 'Kites' })
      expect(result(r)).toMatchObject({ status: 'ok', data: { deleted: 3 } })
      expect(page.runs).toEqual(['delete:3'])
      expect(page.cards).toEqual([])
      expect(asked).toHaveLength(1)
      expect(asked[0]!.message).toContain('Delete challenge 3')
      expect(asked[0]!.message).toContain('Target: Kites')
      expect(asked[0]!.message).toContain('This action cannot be undone.')
      expect(asked[0]!.requestedSchema).toMatchObject({
        properties: { id: { type: 'integer', default: 3 }, name: { type: 'string', default: 'Kites' } },
      })
      expect(page.metas).toEqual([
        { mcp: { tab: 't1', client: { name: 'Claude Desktop', version: '1.2.3' } } },
      ])
    })

    it('an edit in the client is validated again by the page: an invalid one is asked again, a valid one runs', async () => {
      const relay = await relayWith()
      const asked: string[] = []
      const client = await startClient(
        relay,
        (params) => {
          asked.push(params.message)
          return { action: 'accept', content: { id: asked.length === 1 ? 1000 : 7, name: 'Kites' } }
        },
        'Claude Desktop',
        revision,
      )
      const page = await openPage(relay, client)
      const r = await call(client, 't1__challenge__delete', { id: 3, name: 'Kites' })
      expect(result(r)).toMatchObject({ status: 'ok', data: { deleted: 7 } })
      expect(page.runs).toEqual(['delete:7'])
      expect(asked).toHaveLength(2)
      expect(asked[1]).toMatch(/Fix id: /)
    })

    it('decline runs nothing: cancelled by the operator', async () => {
      const relay = await relayWith()
      const client = await startClient(relay, () => ({ action: 'decline' }), 'Claude Desktop', revision)
      const page = await openPage(relay, client)
      const r = await call(client, 't1__challenge__delete', { id: 3 })
      expect(result(r)).toMatchObject({ status: 'cancelled', by: 'operator' })
      expect(page.runs).toEqual([])
    })

    it('an answer after the confirmation expired is refused and nothing runs', async () => {
      const relay = await relayWith()
      const client = await startClient(
        relay,
        async () => {
          await tick(400)
          return { action: 'accept', content: {} }
        },
        'Claude Desktop',
        revision,
      )
      const page = await openPage(relay, client, { expiryMs: 150 })
      const r = await call(client, 't1__challenge__delete', { id: 3 })
      expect(result(r)).toMatchObject({ status: 'refused', code: 'confirmation_expired' })
      await tick(400)
      expect(page.runs).toEqual([])
    })

    it('a tool removed while the client is asked answers stale and nothing runs', async () => {
      const relay = await relayWith()
      let dispose = (): void => {}
      const client = await startClient(
        relay,
        () => {
          dispose()
          return { action: 'accept', content: {} }
        },
        'Claude Desktop',
        revision,
      )
      const page = await openPage(relay, client)
      const handle = page.tm.register({
        name: 'archive',
        description: 'Archive everything.',
        hints: { destructive: true },
        run: () => {
          page.runs.push('archive')
          return ok(true)
        },
      })
      dispose = () => handle.dispose()
      while (!(await client.listTools()).tools.some((t) => t.name === 't1__archive')) await tick()
      const r = await call(client, 't1__archive', {})
      expect(result(r)).toMatchObject({ status: 'refused', code: 'stale' })
      expect(page.runs).toEqual([])
    })

    it('a client without elicitation gets the in-page card, with who asked', async () => {
      const relay = await relayWith()
      const client = await startClient(relay, undefined, 'Claude Desktop', revision)
      const page = await openPage(relay, client)
      const pending = call(client, 't1__challenge__delete', { id: 3 })
      while (page.queue.getPending().length === 0) await tick()
      expect(page.cards[0]).toMatchObject({
        summary: 'Claude Desktop wants to: Delete challenge 3',
        mcp: { tab: 't1', client: { name: 'Claude Desktop', version: '1.2.3' } },
      })
      page.queue.approve(page.queue.getPending()[0]!.confirmId)
      expect(result(await pending)).toMatchObject({ status: 'ok' })
      expect(page.runs).toEqual(['delete:3'])
    })

    it('a tool the page keeps to its own card is never asked in the client', async () => {
      const relay = await relayWith()
      let asked = 0
      const client = await startClient(
        relay,
        () => {
          asked++
          return { action: 'accept', content: {} }
        },
        'Claude Desktop',
        revision,
      )
      const page = await openPage(relay, client, {
        confirmInClient: ({ tool }) => tool !== 'challenge.delete',
      })
      const pending = call(client, 't1__challenge__delete', { id: 3 })
      while (page.queue.getPending().length === 0) await tick()
      page.queue.reject(page.queue.getPending()[0]!.confirmId)
      expect(result(await pending)).toMatchObject({ status: 'cancelled', by: 'operator' })
      expect(asked).toBe(0)
      expect(page.runs).toEqual([])
    })
  },
)

describe('caller identity', () => {
  it('every call carries the client’s declared name and version and its tab in the call meta', async () => {
    const relay = await relayWith()
    const client = await startClient(relay, () => ({ action: 'accept', content: {} }))
    const page = await openPage(relay, client)
    await call(client, 't1__challenge__delete', { id: 3 })
    expect(page.metas).toEqual([{ mcp: { tab: 't1', client: { name: 'Claude Desktop', version: '1.2.3' } } }])
  })

  it('a declared name is one line of at most 256 characters', async () => {
    const relay = await relayWith()
    const client = await startClient(relay, undefined, `Evil\n\u0007Agent${'x'.repeat(400)}`)
    const page = await openPage(relay, client)
    const pending = call(client, 't1__challenge__delete', { id: 3 })
    while (page.queue.getPending().length === 0) await tick()
    const name = (page.metas[0]!.mcp as { client: { name: string } }).client.name
    expect(name.startsWith('Evil Agent')).toBe(true)
    expect([...name]).toHaveLength(256)
    expect(page.cards[0]!.summary).toBe(`${name} wants to: Delete challenge 3`)
    page.queue.reject(page.queue.getPending()[0]!.confirmId)
    await pending
  })
})

describe('tabs', () => {
  it('lists every paired tab with its title and origin; a name without its tab never runs; a closed tab fails clearly', async () => {
    const relay = await relayWith()
    const client = await startClient(relay, () => ({ action: 'accept', content: {} }))
    const one = await openPage(relay, client, { title: 'Challenges' })
    const two = await openPage(relay, client, { title: 'Admin' })
    const listed = (await call(client, 'toolmark_tabs', {})) as CallToolResult & {
      structuredContent: unknown
    }
    expect(listed.structuredContent).toEqual({
      tabs: [
        { tab: 't1', title: 'Challenges', origin: ORIGIN, tools: 1 },
        { tab: 't2', title: 'Admin', origin: ORIGIN, tools: 1 },
      ],
    })
    expect((listed.content[0] as { text: string }).text).toContain(
      't2: "Admin", http://127.0.0.1:5173, 1 tools',
    )

    const bare = await call(client, 'challenge__delete', { id: 3 })
    expect(bare.isError).toBe(true)
    expect((bare.content[0] as { text: string }).text).toBe(
      'Name the tab: challenge__delete is a tool of t1__challenge__delete ("Challenges", http://127.0.0.1:5173), t2__challenge__delete ("Admin", http://127.0.0.1:5173).',
    )
    expect([...one.runs, ...two.runs]).toEqual([])

    one.dispose()
    while ((await client.listTools()).tools.some((t) => t.name.startsWith('t1__'))) await tick()
    const closed = await call(client, 't1__challenge__delete', { id: 3 })
    expect((closed.content[0] as { text: string }).text).toBe(
      'The page of tab t1 is closed or no longer paired: list the tools again.',
    )
    // With one tab left, a name without its tab still does not run there.
    expect((await call(client, 'challenge__delete', { id: 3 })).isError).toBe(true)
    expect(two.runs).toEqual([])
    expect(result(await call(client, 't2__challenge__delete', { id: 4 }))).toMatchObject({ status: 'ok' })
    expect(two.runs).toEqual(['delete:4'])
    expect(
      ((await call(client, 'toolmark_tabs', {})) as { structuredContent: unknown }).structuredContent,
    ).toEqual({
      tabs: [{ tab: 't2', title: 'Admin', origin: ORIGIN, tools: 1 }],
    })
  })
})

describe('structured results', () => {
  it('a tool with an output schema is listed with it and answers its data as structuredContent plus text', async () => {
    const relay = await relayWith()
    const client = await startClient(relay)
    const page = await openPage(relay, client)
    page.tm.register({
      name: 'stats',
      description: 'Counts challenges.',
      input: z.object({ bad: z.boolean().optional() }),
      output: z.object({ count: z.number() }),
      hints: { readOnly: true },
      run: (input) => ok(input.bad ? { count: 'many' as unknown as number } : { count: 3 }),
    })
    let listed = (await client.listTools()).tools.find((t) => t.name === 't1__stats')
    while (!listed)
      [, listed] = [await tick(), (await client.listTools()).tools.find((t) => t.name === 't1__stats')]
    expect(listed.outputSchema).toMatchObject({ type: 'object', properties: { count: { type: 'number' } } })

    const good = await call(client, 't1__stats', {})
    expect(good.isError).toBe(false)
    expect(good.structuredContent).toEqual({ count: 3 })
    expect(JSON.parse((good.content[0] as { text: string }).text)).toEqual({ count: 3 })

    // Data that does not conform never reaches the client as structured content: an error says why.
    const bad = await call(client, 't1__stats', { bad: true })
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent).toBeUndefined()
    expect((bad.content[0] as { text: string }).text).toMatch(
      /^The page's result does not match the tool's output schema: /,
    )
    // A result that is not ok is an error, with the ToolResult as text.
    const invalid = await call(client, 't1__stats', { bad: 'yes' })
    expect(invalid.isError).toBe(true)
    expect(result(invalid)).toMatchObject({ status: 'invalid' })
  })
})

describe('progress', () => {
  for (const revision of ['2025-11-25', '2026-07-28'] as const)
    it(`a tool's ctx.progress reaches a ${revision} client that asked for progress, growing only`, async () => {
      const relay = await relayWith()
      const client = await startClient(relay, undefined, 'Claude Desktop', revision)
      const page = await openPage(relay, client)
      page.tm.register({
        name: 'upload',
        description: 'Uploads the files.',
        hints: { readOnly: true },
        run: async (_input, ctx) => {
          ctx.progress({ fraction: 0.5, message: 'Uploaded 1 of 2' })
          await new Promise((resolve) => setTimeout(resolve, 300))
          ctx.progress({ fraction: 0.4 }) // not growing: never sent
          await new Promise((resolve) => setTimeout(resolve, 300))
          ctx.progress({ fraction: 1, message: 'Uploaded 2 of 2' })
          return ok({ files: 2 })
        },
      })
      let listed = (await client.listTools()).tools.find((t) => t.name === 't1__upload')
      while (!listed)
        [, listed] = [await tick(), (await client.listTools()).tools.find((t) => t.name === 't1__upload')]
      const seen: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
      const done = await client.callTool(
        { name: 't1__upload', arguments: {} },
        { timeout: 10_000, onprogress: (p) => seen.push(p) },
      )
      expect(result(done)).toEqual({ status: 'ok', data: { files: 2 } })
      expect(seen).toEqual([
        { progress: 0.5, total: 1, message: 'Uploaded 1 of 2' },
        { progress: 1, total: 1, message: 'Uploaded 2 of 2' },
      ])
    })
})

describe('tool-definition drift', () => {
  it('a call against a definition changed since the client listed it is refused stale until it lists again', async () => {
    const relay = await relayWith()
    const client = await startClient(relay)
    let changes = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes++
    })
    const page = await openPage(relay, client)
    const note = (description: string, extra: Record<string, unknown> = {}) =>
      page.tm.register({
        name: 'note',
        description,
        jsonSchema: { type: 'object', properties: { text: { type: 'string' }, ...extra } },
        hints: { readOnly: true },
        run: (input) => {
          page.runs.push(`note:${description}`)
          return ok(input)
        },
      })
    const waitChange = async (): Promise<void> => {
      const before = changes
      while (changes === before) await tick()
    }
    let handle = note('Adds a note.')
    await waitChange()
    await client.listTools()
    expect(result(await call(client, 't1__note', { text: 'a' }))).toMatchObject({ status: 'ok' })

    // Another tool changing leaves this one's definition, and its calls, alone.
    page.tm.register({ name: 'other', description: 'x', hints: { readOnly: true }, run: () => ok(1) })
    await waitChange()
    expect(result(await call(client, 't1__note', { text: 'b' }))).toMatchObject({ status: 'ok' })

    handle.dispose()
    handle = note('Adds a note, now with a colour.', { colour: { type: 'string' } })
    await waitChange()
    const stale = await call(client, 't1__note', { text: 'c' })
    expect(stale.isError).toBe(true)
    expect(result(stale)).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'The tool changed since you listed the tools: list the tools again, then call it.',
    })
    expect(page.runs).toEqual(['note:Adds a note.', 'note:Adds a note.'])

    await client.listTools()
    expect(result(await call(client, 't1__note', { text: 'd' }))).toMatchObject({ status: 'ok' })
    expect(page.runs.at(-1)).toBe('note:Adds a note, now with a colour.')
  })
})

describe('protocol 2026-07-28: confirmation as an input_required round trip', () => {
  /** A 2026-07-28 client in manual mode: `input_required` comes back to the test instead of being fulfilled. */
  type InputRequired = {
    resultType: 'input_required'
    inputRequests: Record<string, unknown>
    requestState: string
  }
  const first = async (client: Client, args: Record<string, unknown>): Promise<InputRequired> => {
    const r = (await client.callTool(
      { name: 't1__challenge__delete', arguments: args },
      { timeout: 10_000, allowInputRequired: true },
    )) as unknown as InputRequired
    expect(r.resultType).toBe('input_required')
    return r
  }
  const retry = (
    client: Client,
    args: Record<string, unknown>,
    requestState: string,
    action: 'accept' | 'decline' = 'accept',
  ): Promise<CallToolResult> =>
    client.callTool(
      {
        name: 't1__challenge__delete',
        arguments: args,
        inputResponses: { confirm: action === 'accept' ? { action, content: {} } : { action } },
        requestState,
      } as never,
      { timeout: 10_000, allowInputRequired: true },
    )

  it('serves server/discover with 2026-07-28 and lists the tools in a stable order', async () => {
    const relay = await relayWith()
    const client = await startClient(
      relay,
      () => ({ action: 'accept', content: {} }),
      'Claude Desktop',
      '2026-07-28',
    )
    const discovered = await client.discover()
    expect(discovered.supportedVersions).toContain('2026-07-28')
    expect(discovered.capabilities.tools).toMatchObject({ listChanged: true })
    const page = await openPage(relay, client)
    page.tm.register({ name: 'alpha', description: 'A.', hints: { readOnly: true }, run: () => ok(1) })
    while (!(await client.listTools()).tools.some((t) => t.name === 't1__alpha')) await tick()
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(['toolmark_pair', 'toolmark_tabs', 't1__alpha', 't1__challenge__delete'])
  })

  it('tool list changes reach a subscription (subscriptions/listen); a changed tool is stale until listed again', async () => {
    const relay = await relayWith()
    const client = await startClient(relay, undefined, 'Claude Desktop', '2026-07-28')
    let changes = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes++
    })
    const subscription = await client.listen({ toolsListChanged: true })
    cleanups.push(() => subscription.close())
    const page = await openPage(relay, client)
    const before = changes
    expect(before).toBeGreaterThan(0)
    page.tm.register({
      name: 'note',
      description: 'Adds a note.',
      hints: { readOnly: true },
      run: () => ok(1),
    })
    while (changes === before) await tick()
    const stale = await call(client, 't1__note', {})
    expect(result(stale)).toMatchObject({ status: 'refused', code: 'stale' })
    await client.listTools()
    expect(result(await call(client, 't1__note', {}))).toMatchObject({ status: 'ok' })
  })

  it('a replayed requestState is refused: the call ran once', async () => {
    const relay = await relayWith()
    const client = await startClient(
      relay,
      () => ({ action: 'accept', content: {} }),
      'Claude Desktop',
      '2026-07-28',
      {
        autoFulfill: false,
      },
    )
    const page = await openPage(relay, client)
    const asked = await first(client, { id: 3 })
    expect(asked.inputRequests.confirm).toMatchObject({ method: 'elicitation/create' })
    expect(result(await retry(client, { id: 3 }, asked.requestState))).toMatchObject({ status: 'ok' })
    await expect(retry(client, { id: 3 }, asked.requestState)).rejects.toThrow(
      /Invalid or expired requestState/,
    )
    await tick(50)
    expect(page.runs).toEqual(['delete:3'])
  })

  it('a tampered requestState is refused, and so is the genuine one with another call’s arguments: nothing runs', async () => {
    const relay = await relayWith()
    const client = await startClient(
      relay,
      () => ({ action: 'accept', content: {} }),
      'Claude Desktop',
      '2026-07-28',
      {
        autoFulfill: false,
      },
    )
    const page = await openPage(relay, client)
    const asked = await first(client, { id: 3 })
    const [version, body, mac] = asked.requestState.split('.') as [string, string, string]
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { p: { tool: string } }
    payload.p.tool = 't1__other'
    const forged = `${version}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`
    await expect(retry(client, { id: 3 }, forged)).rejects.toThrow(/Invalid or expired requestState/)
    // Another call's arguments with the genuine state are refused too.
    await expect(retry(client, { id: 4 }, asked.requestState)).rejects.toThrow(/another call/)
    await tick(50)
    expect(page.runs).toEqual([])
  })

  it('a requestState past its lifetime (the call timeout) is refused and nothing runs', async () => {
    const relay = await relayWith({ callTimeoutMs: 1_000 })
    const client = await startClient(
      relay,
      () => ({ action: 'accept', content: {} }),
      'Claude Desktop',
      '2026-07-28',
      {
        autoFulfill: false,
      },
    )
    const page = await openPage(relay, client, { expiryMs: 10_000 })
    const asked = await first(client, { id: 3 })
    await tick(2_100)
    await expect(retry(client, { id: 3 }, asked.requestState)).rejects.toThrow(
      /Invalid or expired requestState/,
    )
    expect(page.runs).toEqual([])
  })
})

describe('an older client', () => {
  it('a client on SDK 1.32 (kept as a devDependency only for this test) still confirms through elicitation', async () => {
    const { Client: OldClient } = await import('@modelcontextprotocol/sdk/client/index.js')
    const { InMemoryTransport: OldTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js')
    const relay = await relayWith()
    const [clientEnd, serverEnd] = OldTransport.createLinkedPair()
    await relay.connect(serverEnd as never)
    const old = new OldClient(
      { name: 'Old Desktop', version: '0.9.0' },
      { capabilities: { elicitation: { form: {} } } },
    )
    const asked: string[] = []
    old.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message)
      return { action: 'accept', content: {} }
    })
    await old.connect(clientEnd)
    cleanups.push(() => old.close())
    const page = await openPage(relay, old as unknown as Client)
    const r = await old.callTool({ name: 't1__challenge__delete', arguments: { id: 3 } })
    expect(result(r as CallToolResult)).toMatchObject({ status: 'ok', data: { deleted: 3 } })
    expect(page.runs).toEqual(['delete:3'])
    expect(asked).toHaveLength(1)
    expect(page.metas).toEqual([{ mcp: { tab: 't1', client: { name: 'Old Desktop', version: '0.9.0' } } }])
  })
})

describe('readable context and prompts on every connection', () => {
  it('each client lists and reads the context; changes reach a 2025 subscriber and a 2026-07-28 subscription, not a client that follows nothing', async () => {
    const relay = await relayWith()
    const older = await startClient(relay)
    const modern = await startClient(relay, undefined, 'Claude Desktop', '2026-07-28')
    const bystander = await startClient(relay)
    const heard = { older: [] as string[], modern: [] as string[], bystander: [] as string[], listed: 0 }
    older.setNotificationHandler(
      'notifications/resources/updated',
      (n) => void heard.older.push(n.params.uri),
    )
    modern.setNotificationHandler(
      'notifications/resources/updated',
      (n) => void heard.modern.push(n.params.uri),
    )
    modern.setNotificationHandler('notifications/resources/list_changed', () => void heard.listed++)
    bystander.setNotificationHandler(
      'notifications/resources/updated',
      (n) => void heard.bystander.push(n.params.uri),
    )
    const uri = 'toolmark://t1/context/cart'
    const subscription = await modern.listen({ resourcesListChanged: true, resourceSubscriptions: [uri] })
    cleanups.push(() => subscription.close())
    const page = await openPage(relay, older)
    const cart = page.tm.context({ name: 'cart', description: 'The cart.', value: { items: 1 } })
    while (heard.listed === 0) await tick()
    for (const client of [older, modern, bystander]) {
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([uri])
      expect((await client.readResource({ uri })).contents).toEqual([
        { uri, mimeType: 'application/json', text: '{"items":1}' },
      ])
    }
    await older.subscribeResource({ uri })
    cart.set({ items: 2 })
    while (heard.older.length === 0 || heard.modern.length === 0) await tick()
    await tick(50)
    expect(heard).toMatchObject({ older: [uri], modern: [uri], bystander: [] })
  })
})
