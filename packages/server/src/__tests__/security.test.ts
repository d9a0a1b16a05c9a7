import { randomUUID } from 'node:crypto'
import type { ToolResult } from '@toolmark/core'
import { PROTOCOL_VERSION } from '@toolmark/protocol'
import { describe, expect, it } from 'vitest'
import type { ProviderEvent } from '../agent/types.ts'
import { MAX_INBOUND_BYTES, TIMEOUT_RESULT } from '../relay/relay.ts'
import { type Clock, manualClock } from '../shared/clock.ts'
import { FakePage, fakeTool } from './support/fake-page.ts'
import { type HttpLink, refusal, TRANSPORTS } from './support/page-links.ts'
import { ScriptedProvider, toolCall } from './support/scripted-provider.ts'
import { testServers } from './support/test-server.ts'

const DEADLINE = 15_000
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const readTool = fakeTool('notes.read', 'Read a note', { readOnly: true }, { type: 'object' }, () => ({
  status: 'ok',
  data: 'first',
}))
const saveTool = fakeTool('notes.save', 'Save a note', { consequential: true }, { type: 'object' })

const server = testServers({ config: { callDeadlineMs: DEADLINE } })

describe.each(TRANSPORTS)('over %s', (transport) => {
  /** Opens a fake page over this suite's transport. */
  const open = (...[url, browser, conversation, tools, options]: Parameters<typeof FakePage.open>) =>
    FakePage.open(url, browser, conversation, tools, { ...options, transport })

  /** A conversation whose agent turn makes one page_call to `tool`; the page answers by hand. */
  async function pendingCall(
    tool = readTool,
    options: { clock?: Clock; script?: Array<() => ProviderEvent[]> } = {},
  ) {
    const provider = new ScriptedProvider(
      options.script ?? [() => [toolCall('tc1', 'page_call', { tool: tool.name, input: { text: 'hi' } })]],
    )
    const t = await server({ provider, ...(options.clock ? { clock: options.clock } : {}) })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const page = await open(t.server.url, browser, conversation, [readTool, saveTool])
    page.autoAnswer = false
    const next = page.next((m) => m.type === 'call')
    await browser.say(conversation, 'do it')
    const call = await next
    if (call.type !== 'call') throw new Error('expected a call')
    return { t, provider, browser, conversation, page, call }
  }

  /** The tool-result contents the provider saw in its last request. */
  const lastToolContent = (provider: ScriptedProvider): string | undefined => {
    const messages = provider.requests.at(-1)?.messages ?? []
    const last = [...messages].reverse().find((m) => m.role === 'tool')
    return last?.role === 'tool' ? last.content : undefined
  }

  describe('Security MUST 1: sockets are authenticated and bound to one user and conversation', () => {
    it('closes a socket without a session cookie with 4401', async () => {
      const t = await server()
      const conversation = await (await t.browser()).createConversation()
      expect(await refusal(transport, t.server.url, { conversation })).toBe(4401)
    })

    it('closes a socket with a forged session cookie with 4401', async () => {
      const t = await server()
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      const [name, value] = browser.cookie.split('=') as [string, string]
      const forged = `${name}=${value.slice(0, value.lastIndexOf('.'))}.${'A'.repeat(43)}`
      expect(await refusal(transport, t.server.url, { cookie: forged, conversation })).toBe(4401)
    })

    it("closes a socket for another user's conversation, or an unknown one, with 4403", async () => {
      const t = await server()
      const alice = await t.browser()
      const bob = await t.browser()
      const alices = await alice.createConversation()
      expect(await refusal(transport, t.server.url, { cookie: bob.cookie, conversation: alices })).toBe(4403)
      expect(await refusal(transport, t.server.url, { cookie: bob.cookie, conversation: randomUUID() })).toBe(
        4403,
      )
    })

    it('closes a cross-origin socket with 4403', async () => {
      const t = await server()
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      expect(
        await refusal(transport, t.server.url, {
          cookie: browser.cookie,
          conversation,
          origin: 'https://evil.example',
        }),
      ).toBe(4403)
    })

    it('relays a call only to the sockets of its own conversation', async () => {
      const { t, browser, page, call } = await pendingCall()
      const other = await browser.createConversation()
      const eavesdropper = await open(t.server.url, browser, other, [readTool])
      expect(call.clientId).toBe(page.clientId)
      await eavesdropper.flush()
      expect(eavesdropper.inbox).toEqual([])
    })
  })

  describe('Security MUST 2 and 6: call ids are random UUID v4, bound and stored before sending', () => {
    it('stores the binding (user, conversation, clientId, deadline) before the page receives the call', async () => {
      const { t, browser, conversation, page, call } = await pendingCall()
      const binding = await t.server.store.getCall(call.id)
      const userId = (await t.server.store.getConversation(conversation))!.userId
      expect(binding).toMatchObject({
        userId,
        conversationId: conversation,
        clientId: page.clientId,
        state: 'pending',
      })
      expect(binding!.deadlineAt - binding!.createdAt).toBe(DEADLINE)
      expect(browser.cookie).not.toContain(userId) // the cookie names a session, not the user
    })

    it('mints a distinct UUID v4 for every call and describe', async () => {
      const calls = Array.from({ length: 20 }, (_, i) =>
        toolCall(`tc${i}`, i % 2 ? 'page_call' : 'page_describe', { tool: readTool.name, input: {} }),
      )
      const provider = new ScriptedProvider([() => calls])
      const t = await server({ provider })
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      const page = await open(t.server.url, browser, conversation, [readTool])
      await browser.say(conversation, 'go')
      await t.server.agent.idle(conversation)
      const ids = page.inbox.map((m) => m.id)
      expect(ids).toHaveLength(20)
      expect(new Set(ids).size).toBe(20)
      for (const id of ids) expect(id).toMatch(UUID_V4)
    })
  })

  describe('Security MUST 3: results that do not match their binding are rejected', () => {
    it('rejects a result from another page load (clientId) of the same conversation', async () => {
      const { t, browser, conversation, page, call, provider } = await pendingCall()
      const tab = await open(t.server.url, browser, conversation, [readTool], { manifest: false })
      tab.result(call.id, { status: 'ok', data: 'forged' })
      await tab.flush()
      expect(t.rejections).toMatchObject([{ reason: 'mismatch', type: 'result', id: call.id }])
      page.result(call.id, { status: 'ok', data: 'real' }) // the binding was not used up
      await t.server.agent.idle(conversation)
      expect(lastToolContent(provider)).toBe(JSON.stringify({ status: 'ok', data: 'real' }))
    })

    it("rejects a result sent over another conversation's socket, even with the right clientId", async () => {
      const { t, browser, page, call } = await pendingCall()
      const other = await browser.createConversation()
      const intruder = await open(t.server.url, browser, other, [readTool], { manifest: false })
      intruder.result(call.id, { status: 'ok' }, page.clientId)
      await intruder.flush()
      expect(t.rejections).toMatchObject([{ reason: 'mismatch', id: call.id, conversationId: other }])
      expect((await t.server.store.getCall(call.id))!.state).toBe('pending')
    })

    it("rejects a result sent by another user for this conversation's call", async () => {
      const { t, page, call } = await pendingCall()
      const mallory = await t.browser()
      const own = await mallory.createConversation()
      const intruder = await open(t.server.url, mallory, own, [readTool], { manifest: false })
      intruder.result(call.id, { status: 'ok' }, page.clientId)
      await intruder.flush()
      expect(t.rejections).toMatchObject([{ reason: 'mismatch', id: call.id }])
      expect((await t.server.store.getCall(call.id))!.state).toBe('pending')
    })

    it('rejects malformed, wrong-version and wrong-direction messages', async () => {
      const { t, page, call } = await pendingCall()
      page.send('not json')
      page.send({
        protocol: 2,
        type: 'result',
        clientId: page.clientId,
        id: call.id,
        result: { status: 'ok' },
      })
      page.send({
        protocol: PROTOCOL_VERSION,
        type: 'call',
        clientId: page.clientId,
        id: call.id,
        tool: 'x',
        input: {},
      })
      page.send({
        protocol: PROTOCOL_VERSION,
        type: 'result',
        clientId: page.clientId,
        id: call.id,
        result: { status: 'nope' },
      })
      await page.flush()
      expect(t.rejections.map((r) => r.reason)).toEqual(['invalid', 'invalid', 'invalid', 'invalid'])
      expect((await t.server.store.getCall(call.id))!.state).toBe('pending')
    })

    // The protocol's own limit (1048576 UTF-8 bytes) over each transport, and the answer each can give: a socket
    // closes with 1009; an HTTP page gets 413 before the body is parsed, and its page connection closes. Either
    // way the message is rejected as invalid (too large). The result below is over the limit in UTF-8 bytes (two
    // per 'é') but not in UTF-16 code units: the limit counts bytes.
    const heavy = (clientId: string, id: string) =>
      JSON.stringify({
        protocol: 1,
        type: 'result',
        clientId,
        id,
        result: { status: 'ok', data: 'é'.repeat(MAX_INBOUND_BYTES / 2 + 1000) },
      })
    const oversized = {
      websocket: async () => {
        const { t, page, call } = await pendingCall()
        page.ws.send(
          Buffer.from(
            JSON.stringify({
              protocol: 1,
              type: 'result',
              clientId: page.clientId,
              id: call.id,
              result: { status: 'ok' },
            }),
          ),
        )
        await page.flush()
        expect((await t.server.store.getCall(call.id))!.state).toBe('pending')
        const closed = new Promise<number>((resolve) => page.ws.once('close', resolve))
        page.send(heavy(page.clientId, call.id))
        expect(await closed).toBe(1009)
        await t.settled()
        expect(t.rejections).toMatchObject([{ reason: 'invalid', detail: 'too large' }])
        expect((await t.server.store.getCall(call.id))!.state).toBe('pending')
      },
      http: async () => {
        const { t, page, call } = await pendingCall()
        const link = page.link as HttpLink
        page.send(heavy(page.clientId, call.id))
        await page.flush()
        expect(link.statuses).toEqual([202, 413]) // the manifest, then the oversized message
        await link.ended // the server ended the stream, as a socket closes with 1009
        await t.settled()
        expect(t.rejections).toMatchObject([{ reason: 'invalid', detail: 'too large' }])
        page.result(call.id, { status: 'ok' })
        await page.flush()
        expect(link.statuses.at(-1)).toBe(404) // that page connection is gone
        expect((await t.server.store.getCall(call.id))!.state).toBe('pending')
      },
    }
    it(
      transport === 'websocket'
        ? 'ignores binary frames and closes the socket on a frame over 1048576 bytes'
        : 'answers 413 to a POST over 1048576 bytes and closes the page connection',
      () => oversized[transport](),
    )

    it('rejects a message nested deeper than 64 levels, and takes one 64 deep', async () => {
      const { t, page, call } = await pendingCall()
      const nested = (depth: number): unknown => (depth <= 1 ? {} : { a: nested(depth - 1) })
      // The message is level 1 and its result level 2: data nested n deep makes the message n + 2 deep.
      page.result(call.id, { status: 'ok', data: nested(63) })
      await page.flush()
      expect(t.rejections).toMatchObject([{ reason: 'invalid', detail: 'too_deep' }])
      expect((await t.server.store.getCall(call.id))!.state).toBe('pending')
      page.result(call.id, { status: 'ok', data: nested(62) })
      await page.flush()
      expect(t.rejections).toHaveLength(1)
      expect((await t.server.store.getCall(call.id))!.state).toBe('answered')
    })
  })

  describe('Security MUST 4: unknown and duplicate results are rejected', () => {
    it('rejects a result for an id the server never issued', async () => {
      const { t, page } = await pendingCall()
      const made = randomUUID()
      page.result(made, { status: 'ok' })
      await page.flush()
      expect(t.rejections).toMatchObject([{ reason: 'unknown_id', id: made }])
    })

    it('accepts the first result for an id and rejects the second', async () => {
      const { t, conversation, page, call, provider } = await pendingCall()
      page.result(call.id, { status: 'ok', data: 'first' })
      page.result(call.id, { status: 'ok', data: 'second' })
      await page.flush()
      await t.server.agent.idle(conversation)
      expect(t.rejections).toMatchObject([{ reason: 'duplicate', id: call.id }])
      expect(lastToolContent(provider)).toBe(JSON.stringify({ status: 'ok', data: 'first' }))
    })
  })

  describe('Security MUST 5: the deadline is enforced', () => {
    it('maps a missing result to a timeout, sends cancel, and rejects the late result', async () => {
      const clock = manualClock()
      const { t, conversation, page, call, provider } = await pendingCall(readTool, { clock })
      const cancel = page.next((m) => m.type === 'cancel')
      clock.advance(DEADLINE)
      expect(await cancel).toEqual({ protocol: 1, type: 'cancel', clientId: page.clientId, id: call.id })
      await t.server.agent.idle(conversation)
      expect(lastToolContent(provider)).toBe(JSON.stringify(TIMEOUT_RESULT))
      page.result(call.id, { status: 'ok', data: 'too late' })
      await page.flush()
      expect(t.rejections).toMatchObject([{ reason: 'late', id: call.id }])
      expect(JSON.stringify(await t.server.store.listMessages(conversation))).not.toContain('too late')
    })

    it('rejects a result past the deadline even before the deadline timer ran', async () => {
      let now = 1_000_000
      const lazy: Clock = { now: () => now, setTimeout: () => 0, clearTimeout: () => {} }
      const { t, conversation, page, call, provider } = await pendingCall(readTool, { clock: lazy })
      now += DEADLINE + 1
      const cancel = page.next((m) => m.type === 'cancel')
      page.result(call.id, { status: 'ok', data: 'too late' })
      expect(await cancel).toMatchObject({ type: 'cancel', id: call.id })
      await t.server.agent.idle(conversation)
      expect(t.rejections).toMatchObject([{ reason: 'late', id: call.id }])
      expect(lastToolContent(provider)).toBe(JSON.stringify(TIMEOUT_RESULT))
    })
  })

  describe('confirmed: only for a confirmId seen in an accepted needs_confirmation, and only once', () => {
    const needs = (confirmId: string): ToolResult => ({
      status: 'needs_confirmation',
      confirmId,
      summary: 'Save note',
      changes: [],
    })

    async function awaitingConfirmation() {
      const setup = await pendingCall(saveTool)
      const confirmId = randomUUID()
      setup.page.result(setup.call.id, needs(confirmId))
      await setup.t.server.agent.idle(setup.conversation)
      return { ...setup, confirmId }
    }

    it('rejects a forged confirmId and runs no follow-up turn', async () => {
      const { t, conversation, page, provider } = await awaitingConfirmation()
      const before = provider.requests.length
      const forged = randomUUID()
      page.confirmed(forged, { status: 'ok' })
      await page.flush()
      await t.server.agent.idle(conversation)
      expect(t.rejections).toMatchObject([{ reason: 'unknown_confirm', id: forged }])
      expect(provider.requests).toHaveLength(before)
    })

    it('rejects a confirmId bound to another page load or another conversation', async () => {
      const { t, browser, conversation, page, confirmId } = await awaitingConfirmation()
      const tab = await open(t.server.url, browser, conversation, [saveTool], { manifest: false })
      tab.confirmed(confirmId, { status: 'ok' })
      await tab.flush()
      const other = await open(t.server.url, browser, await browser.createConversation(), [], {
        manifest: false,
      })
      other.confirmed(confirmId, { status: 'ok' }, page.clientId)
      await other.flush()
      expect(t.rejections.map((r) => r.reason)).toEqual(['mismatch', 'mismatch'])
      expect((await t.server.store.getConfirm(confirmId))!.state).toBe('pending')
    })

    it('does not bind the confirmId of a needs_confirmation that arrived after the deadline', async () => {
      const clock = manualClock()
      const { t, conversation, page, call } = await pendingCall(saveTool, { clock })
      clock.advance(DEADLINE)
      await t.server.agent.idle(conversation)
      const confirmId = randomUUID()
      page.result(call.id, needs(confirmId))
      page.confirmed(confirmId, { status: 'ok' })
      await page.flush()
      expect(t.rejections.map((r) => r.reason)).toEqual(['late', 'unknown_confirm'])
    })

    it('accepts the first confirmed, runs exactly one follow-up turn, and rejects a second', async () => {
      const { t, conversation, page, provider, confirmId } = await awaitingConfirmation()
      const before = provider.requests.length
      page.confirmed(confirmId, { status: 'ok', data: 'saved' })
      page.confirmed(confirmId, { status: 'ok', data: 'saved again' })
      await page.flush()
      await t.server.agent.idle(conversation)
      expect(t.rejections).toMatchObject([{ reason: 'duplicate_confirm', id: confirmId }])
      expect(provider.requests).toHaveLength(before + 1)
      expect(provider.requests.at(-1)!.tools).toEqual([])
    })
  })
})
