import { randomUUID } from 'node:crypto'
import { PROTOCOL_VERSION } from '@toolmark/protocol'
import { describe, expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { testServers } from '../../__tests__/support/test-server.ts'
import { escapeForLog, logString } from '../../shared/log.ts'

const server = testServers()

const read = fakeTool('notes.read', 'Read a note', { readOnly: true }, { type: 'object' })
const save = fakeTool('notes.save', 'Save a note', { consequential: true }, { type: 'object' })

describe('log lines cannot be forged', () => {
  it('escapes CR, LF, other controls, quotes and line separators in page-controlled ids', async () => {
    const t = await server()
    const browser = await t.browser()
    const page = await FakePage.open(t.server.url, browser, await browser.createConversation(), [read])
    const forged = `x\r\n[relay] accepted result id=y\u2028\u0085\u001b[31m"\\`
    page.result(forged, { status: 'ok' })
    page.confirmed(`${forged}2`, { status: 'ok' })
    page.send({ protocol: PROTOCOL_VERSION, type: 'changed', clientId: 'other\nline', rev: 1 })
    await page.flush()
    expect(t.rejections.map((r) => r.reason)).toEqual(['unknown_id', 'unknown_confirm'])
    const lines = t.logs.filter((l) => l.startsWith('[relay] rejected'))
    expect(lines).toHaveLength(2)
    for (const line of lines) {
      expect(
        [...line].filter((c) => c.charCodeAt(0) < 0x20 || /[\u007f-\u009f\u2028\u2029]/.test(c)),
      ).toEqual([])
      expect(line).toContain(
        'id="x\\u000d\\u000a[relay] accepted result id=y\\u2028\\u0085\\u001b[31m\\"\\\\',
      )
    }
  })

  it('logString quotes, masks and shortens; escapeForLog is the same without quotes', () => {
    expect(logString('a"b')).toBe('"a\\"b"')
    expect(logString('card 4242 4242 4242 4242')).toBe('"card **** 4242"')
    expect(logString('x'.repeat(500))).toBe(`"${'x'.repeat(200)}…"`)
    expect(escapeForLog(new Error('boom\nsecond'))).toBe('Error: boom\\u000asecond')
  })
})

describe('manifest revisions only move forward per page load', () => {
  it('ignores a manifest with a lower rev than the stored one for the same clientId', async () => {
    const t = await server()
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const page = await FakePage.open(t.server.url, browser, conversation, [read], { manifest: false })
    page.rev = 5
    await page.sendManifest([read, save])
    page.rev = 3 // an older broadcast arrives late
    await page.sendManifest([read])
    expect(await t.server.relay.page(conversation)).toMatchObject({
      rev: 5,
      tools: [{ name: 'notes.read' }, { name: 'notes.save' }],
    })
    expect(t.rejections).toMatchObject([{ reason: 'old_rev', type: 'manifest', clientId: page.clientId }])
    page.rev = 5 // the same rev again (a reconnect re-sends it) is accepted
    await page.sendManifest([read, save])
    page.rev = 6
    await page.sendManifest([read])
    expect(await t.server.relay.page(conversation)).toMatchObject({ rev: 6, tools: [{ name: 'notes.read' }] })
    expect(t.rejections).toHaveLength(1)
  })
})

describe('the rebind log line', () => {
  it('is written only when a new page load takes over, never for the first page load or a repeated manifest', async () => {
    const t = await server()
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const rebound = () => t.logs.filter((l) => l.includes('rebound to a new page load'))
    const first = await FakePage.open(t.server.url, browser, conversation, [read])
    expect((await t.server.relay.page(conversation))?.clientId).toBe(first.clientId)
    first.rev = 2
    await first.sendManifest([read, save])
    await first.sendManifest()
    expect(rebound()).toEqual([])
    const reloaded = await FakePage.open(t.server.url, browser, conversation, [read])
    expect((await t.server.relay.page(conversation))?.clientId).toBe(reloaded.clientId)
    expect(rebound()).toEqual([`[relay] conversation=${conversation} rebound to a new page load`])
    await reloaded.sendManifest()
    expect(rebound()).toHaveLength(1)
    await first.close()
    await reloaded.close()
  })
})

describe('needs_confirmation without changes', () => {
  it('is accepted as changes: [] (bound, handed to the agent, and confirmable)', async () => {
    const provider = new ScriptedProvider([
      () => [toolCall('tc1', 'page_call', { tool: save.name, input: {} })],
    ])
    const t = await server({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const page = await FakePage.open(t.server.url, browser, conversation, [save])
    page.autoAnswer = false
    const next = page.next((m) => m.type === 'call')
    await browser.say(conversation, 'save it')
    const call = await next
    const confirmId = randomUUID()
    page.send({
      protocol: PROTOCOL_VERSION,
      type: 'result',
      clientId: page.clientId,
      id: call.id,
      result: { status: 'needs_confirmation', confirmId, summary: 'Save note' },
    })
    await page.flush()
    await t.server.agent.idle(conversation)
    expect(t.rejections).toEqual([])
    const tool = provider.requests.at(-1)!.messages.findLast((m) => m.role === 'tool')
    expect(tool?.role === 'tool' && JSON.parse(tool.content)).toEqual({
      status: 'needs_confirmation',
      confirmId,
      summary: 'Save note',
      changes: [],
    })
    expect((await t.server.store.getConfirm(confirmId))?.state).toBe('pending')
    page.confirmed(confirmId, { status: 'ok' })
    await page.flush()
    await t.server.agent.idle(conversation)
    expect((await t.server.store.getConfirm(confirmId))?.state).toBe('used')
  })
})
