import { expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { testServers } from '../../__tests__/support/test-server.ts'
import { createMemoryStore } from '../../store/memory.ts'
import { Relay } from '../relay.ts'

// What an instance keeps of a conversation's page (its binding and manifest) is dropped everywhere when the
// page changes, and never decides where a call goes. Three instances in the `server-shared` project: the
// pages connect to A, then C; every turn runs on B.
const server = testServers()
const read = fakeTool('notes.read', 'Read the notes', {}, { type: 'object' })
const archive = fakeTool('notes.archive', 'Archive the notes', {}, { type: 'object' })

const manifest = (clientId: string, tools = [read]) =>
  JSON.stringify({
    protocol: 1,
    type: 'manifest',
    clientId,
    rev: 1,
    tools: tools.map(({ name, llmName, description, hints }) => ({ name, llmName, description, hints })),
  })

it('sends the next call to the page load that took the conversation over on another instance at once, and shows its manifest', async () => {
  const provider = new ScriptedProvider([
    () => [toolCall('tc1', 'page_call', { tool: read.name, input: {} })],
    () => [{ type: 'text', delta: 'read' }],
    () => [toolCall('tc2', 'page_call', { tool: read.name, input: {} })],
    () => [{ type: 'text', delta: 'read again' }],
  ])
  const t = await server({ provider })
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const first = await FakePage.open(t.server.url, browser, conversation, [read])
  await browser.say(conversation, 'read the notes')
  await t.server.agent.idle(conversation)
  expect(first.calls).toHaveLength(1) // the turn's instance has a copy of this page now
  // A new tab (another page load, on another instance) takes the conversation over; the first stays open.
  const second = await FakePage.open(t.server.url, browser, conversation, [read, archive])
  await browser.say(conversation, 'read them again')
  await t.server.agent.idle(conversation)
  expect(second.calls).toHaveLength(1)
  expect(first.calls).toHaveLength(1)
  // The second turn was offered the new page load's tools, not the copy of the first one's.
  expect(JSON.stringify(provider.requests[0]!.tools)).not.toContain(archive.name)
  expect(JSON.stringify(provider.requests[2]!.tools)).toContain(archive.name)
  expect(t.rejections).toEqual([])
})

it('binds a call to the page load the store names even when the copy an instance kept is out of date', async () => {
  // Two relays on one store and no coordinator: a change on one is never announced to the other.
  const store = createMemoryStore()
  const here = new Relay({ store, deadlineMs: 10_000, log: () => {} })
  const there = new Relay({ store, deadlineMs: 10_000, log: () => {} })
  const user = await store.createUser()
  const { id: conversationId } = await store.createConversation(user.id)
  const sent: Record<string, string[]> = { old: [], new: [] }
  const old = here.connect(user.id, conversationId, (message) => sent.old!.push(JSON.stringify(message)))
  expect(await old.receive(manifest('page-old'))).toBe(true)
  expect((await here.page(conversationId))?.clientId).toBe('page-old') // copied here
  // The new page load binds the conversation on the other relay; its socket here has only said it is alive.
  const elsewhere = there.connect(user.id, conversationId, () => {})
  expect(await elsewhere.receive(manifest('page-new', [read, archive]))).toBe(true)
  let delivered: () => void = () => {}
  const arrived = new Promise<void>((resolve) => {
    delivered = resolve
  })
  const fresh = here.connect(user.id, conversationId, (message) => {
    sent.new!.push(JSON.stringify(message))
    delivered()
  })
  expect(
    await fresh.receive(JSON.stringify({ protocol: 1, type: 'changed', clientId: 'page-new', rev: 1 })),
  ).toBe(true)
  expect((await here.page(conversationId))?.clientId).toBe('page-old') // the copy is out of date
  const outcome = here.request(
    { userId: user.id, conversationId, toolCallId: 'tc1' },
    { kind: 'call', tool: read.name, input: {} },
  )
  await arrived
  expect(sent.new).toHaveLength(1)
  expect(sent.old).toEqual([])
  const call = JSON.parse(sent.new![0]!) as { id: string; clientId: string }
  expect(call.clientId).toBe('page-new')
  expect((await store.getCall(call.id))?.clientId).toBe('page-new')
  expect(
    await fresh.receive(
      JSON.stringify({
        protocol: 1,
        type: 'result',
        clientId: 'page-new',
        id: call.id,
        result: { status: 'ok' },
      }),
    ),
  ).toBe(true)
  expect(await outcome).toMatchObject({ clientId: 'page-new', result: { status: 'ok' }, timedOut: false })
  // The refused guess dropped the copy: the next read has the page load the store names.
  expect((await here.page(conversationId))?.clientId).toBe('page-new')
  await Promise.all([here.close(), there.close()])
})
