import { wrapUntrusted } from '@toolmark/protocol'
import { afterEach, describe, expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { flushSocket, openSocket } from '../../__tests__/support/page-links.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { testServer } from '../../__tests__/support/test-server.ts'
import { EXPIRED_RESULT } from '../../agent/loop.ts'
import { manualClock } from '../../shared/clock.ts'
import { TIMEOUT_RESULT } from '../relay.ts'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const DEADLINE = 15_000
const readTool = fakeTool('notes.read', 'Read a note', { readOnly: true }, { type: 'object' }, () => ({
  status: 'ok',
  data: 'from the page',
}))
const saveTool = fakeTool('notes.save', 'Save a note', { consequential: true }, { type: 'object' }, () => ({
  status: 'ok',
  data: 'saved',
}))

/** Every turn makes one page_call to `tool`, then ends with a short text. */
function callingProvider(tool: string): ScriptedProvider {
  const provider = new ScriptedProvider([])
  let n = 0
  provider.stream = async function* (request) {
    provider.requests.push(
      structuredClone({ system: request.system, messages: request.messages, tools: request.tools }),
    )
    if (request.tools.length === 0) return yield { type: 'text' as const, delta: 'acknowledged' }
    const last = request.messages.at(-1)
    if (last?.role === 'user') yield toolCall(`tc${++n}`, 'page_call', { tool, input: {} })
    else yield { type: 'text' as const, delta: 'done' }
  }
  return provider
}

async function setup(tool = readTool.name, clock = manualClock(), reaskConfirmations = true) {
  const provider = callingProvider(tool)
  const t = await testServer({ provider, clock, config: { callDeadlineMs: DEADLINE, reaskConfirmations } })
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const first = await FakePage.open(t.server.url, browser, conversation, [readTool, saveTool])
  return { t, provider, browser, conversation, first, clock }
}

describe("navigation and full reloads: a new page load rebinds, a gone page's confirmIds expire", () => {
  it("rebinds the conversation to a new page load's first manifest and sends later calls there", async () => {
    const { t, browser, conversation, first } = await setup()
    expect((await t.server.relay.page(conversation))?.clientId).toBe(first.clientId)
    const reloaded = await FakePage.open(t.server.url, browser, conversation, [readTool])
    expect((await t.server.relay.page(conversation))?.clientId).toBe(reloaded.clientId)
    await browser.say(conversation, 'read it')
    await t.server.agent.idle(conversation)
    expect(reloaded.calls).toHaveLength(1)
    expect(first.calls).toHaveLength(0)
    expect(first.inbox).toEqual([])
  })

  it('keeps the binding when the same page load sends a new manifest revision', async () => {
    const { t, conversation, first } = await setup()
    first.rev = 2
    await first.sendManifest([readTool])
    expect(await t.server.relay.page(conversation)).toMatchObject({ clientId: first.clientId, rev: 2 })
    expect((await t.server.relay.page(conversation))!.tools.map((tool) => tool.name)).toEqual(['notes.read'])
  })

  it('refuses a clientId that already belongs to another conversation', async () => {
    const { t, browser, conversation, first } = await setup()
    const other = await browser.createConversation()
    const { ws } = await openSocket(t.server.url, { cookie: browser.cookie, conversation: other })
    cleanup.push(async () => ws.close())
    ws.send(JSON.stringify({ protocol: 1, type: 'manifest', clientId: first.clientId, rev: 9, tools: [] }))
    await first.flush()
    await flushSocket(t, ws)
    expect(t.rejections).toMatchObject([{ reason: 'mismatch', type: 'manifest', conversationId: other }])
    expect(await t.server.relay.page(conversation)).toMatchObject({ clientId: first.clientId, rev: 1 })
    expect(await t.server.relay.page(other)).toBeUndefined()
  })

  it('accepts a result from the old page load that arrives before the deadline', async () => {
    const { t, provider, browser, conversation, first } = await setup()
    first.autoAnswer = false
    const call = first.next((m) => m.type === 'call')
    await browser.say(conversation, 'read it')
    const { id } = await call
    await FakePage.open(t.server.url, browser, conversation, [readTool]) // reload in another tab
    first.result(id, { status: 'ok', data: 'answered just before the reload' })
    await t.server.agent.idle(conversation)
    expect(t.rejections).toEqual([])
    const content = provider.requests.at(-1)!.messages.at(-1)
    expect(content).toMatchObject({
      role: 'tool',
      content: JSON.stringify({ status: 'ok', data: 'answered just before the reload' }),
    })
  })

  it('maps a call to a page that is gone to a timeout at the deadline', async () => {
    const { t, provider, browser, conversation, first, clock } = await setup()
    first.autoAnswer = false
    const call = first.next((m) => m.type === 'call')
    await browser.say(conversation, 'read it')
    await call
    await first.close()
    await FakePage.open(t.server.url, browser, conversation, [readTool])
    clock.advance(DEADLINE)
    await t.server.agent.idle(conversation)
    expect(provider.requests.at(-1)!.messages.at(-1)).toMatchObject({
      content: JSON.stringify(TIMEOUT_RESULT),
    })
  })

  it('treats the confirmIds of a page that is gone as expired, and rejects a later confirmed for them', async () => {
    // Without asking again, the card is lost with its page (asking again: reask.test.ts).
    const { t, provider, browser, conversation, first } = await setup(saveTool.name, manualClock(), false)
    await browser.say(conversation, 'save it')
    await t.server.agent.idle(conversation)
    const [confirmId] = [...first.pending.keys()]
    await first.close()
    await FakePage.open(t.server.url, browser, conversation, [saveTool]) // the full reload
    await t.server.agent.idle(conversation)
    expect((await t.server.store.getConfirm(confirmId!))!.state).toBe('expired')
    const log = await browser.messages(conversation)
    expect(log.at(-1)).toMatchObject({ role: 'tool', text: expect.stringContaining('confirmation expired') })
    const history = (await t.server.store.listMessages(conversation)).at(-1)!.agent
    expect(history).toMatchObject({
      role: 'tool',
      confirmId,
      content: JSON.stringify(wrapUntrusted(EXPIRED_RESULT)),
    })

    // The old page load's late `confirmed` (e.g. sent as it unloaded) is rejected: no follow-up turn.
    const before = provider.requests.length
    const { ws } = await openSocket(t.server.url, { cookie: browser.cookie, conversation })
    cleanup.push(async () => ws.close())
    ws.send(
      JSON.stringify({
        protocol: 1,
        type: 'confirmed',
        clientId: first.clientId,
        confirmId,
        result: { status: 'ok' },
      }),
    )
    await flushSocket(t, ws)
    await t.server.agent.idle(conversation)
    expect(t.rejections).toMatchObject([{ reason: 'expired_confirm', id: confirmId }])
    expect(provider.requests).toHaveLength(before)
  })

  it('still accepts confirmed from an old tab that keeps its socket open', async () => {
    const { t, provider, browser, conversation, first } = await setup(saveTool.name)
    await browser.say(conversation, 'save it')
    await t.server.agent.idle(conversation)
    const [confirmId] = [...first.pending.keys()]
    await FakePage.open(t.server.url, browser, conversation, [saveTool]) // a second tab
    expect((await t.server.store.getConfirm(confirmId!))!.state).toBe('pending')
    await first.approve(confirmId!)
    await t.server.agent.idle(conversation)
    expect(t.rejections).toEqual([])
    expect(provider.requests.at(-1)!.tools).toEqual([])
    expect((await browser.messages(conversation)).at(-1)).toMatchObject({
      role: 'assistant',
      text: 'acknowledged',
    })
  })

  it('expires the confirmIds of an old tab when it closes after the rebind', async () => {
    const { t, browser, conversation, first } = await setup(saveTool.name)
    await browser.say(conversation, 'save it')
    await t.server.agent.idle(conversation)
    const [confirmId] = [...first.pending.keys()]
    const second = await FakePage.open(t.server.url, browser, conversation, [saveTool])
    await first.close()
    await second.flush()
    expect((await t.server.store.getConfirm(confirmId!))!.state).toBe('expired')
  })

  it('keeps confirmIds and routing when the bound page reconnects with the same clientId', async () => {
    const { t, browser, conversation, first } = await setup(saveTool.name)
    await browser.say(conversation, 'save it')
    await t.server.agent.idle(conversation)
    const [confirmId] = [...first.pending.keys()]
    await first.close() // a dropped connection; the page keeps its clientId and reconnects
    const { ws } = await openSocket(t.server.url, { cookie: browser.cookie, conversation })
    cleanup.push(async () => ws.close())
    const nextCall = new Promise<unknown>((resolve) =>
      ws.once('message', (data) => resolve(JSON.parse(String(data)))),
    )
    ws.send(
      JSON.stringify({
        protocol: 1,
        type: 'confirmed',
        clientId: first.clientId,
        confirmId,
        result: { status: 'ok' },
      }),
    )
    await flushSocket(t, ws)
    await t.server.agent.idle(conversation)
    expect(t.rejections).toEqual([])
    expect((await t.server.store.getConfirm(confirmId!))!.state).toBe('used')
    await browser.say(conversation, 'save it again')
    expect(await nextCall).toMatchObject({ type: 'call', clientId: first.clientId, tool: saveTool.name })
  })
})
