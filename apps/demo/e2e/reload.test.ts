import { expect, test, vi } from 'vitest'
import type { DemoPage } from './harness.ts'
import { withDemo } from './setup.ts'

const setup = withDemo()

/** The shared tab, started over: a new conversation on a freshly loaded challenges page. */
async function open(): Promise<DemoPage> {
  await setup.tab.fresh()
  return setup.tab
}

test('a full reload mid-conversation: new clientId, the server rebinds, the next call reaches the new page', async () => {
  const demo = await open()
  const first = demo.frames.find((f) => f.direction === 'sent' && f.message.type === 'manifest')!.message
    .clientId
  await demo.ask('Search for chess')
  const conversation = await demo.conversationId()
  const rebound: string[] = []
  const off = setup.server.server.relay.on('rebound', (event) => {
    if (event.conversationId === conversation) rebound.push(`${event.from}→${event.to}`)
  })

  const from = demo.frames.length
  const second = await demo.reload()
  expect(second).not.toBe(first)
  expect(await demo.conversationId()).toBe(conversation)
  // The chat history survived the reload (same conversation, read back from the server).
  expect((await demo.messages('assistant')).join('\n')).toContain('Chess Openings')

  const reply = await demo.ask('Search for marathon')
  expect(reply.join('\n')).toContain('Marathon Training')
  const calls = demo.frames.slice(from).filter((f) => f.direction === 'received' && f.message.type === 'call')
  expect(calls.map((f) => [f.message.clientId, f.message.tool])).toEqual([[second, 'challenges.search']])
  off()
  expect(rebound).toEqual([`${first}→${second}`])
})

test('a pending card after a reload: its confirmId is expired, the decision is asked again with a new card, approved once', async () => {
  const demo = await open()
  await demo.ask('Create a challenge called Robotics')
  await demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]').waitFor()
  const pending = await demo.waitForFrame(
    (f) =>
      f.direction === 'sent' &&
      f.message.type === 'result' &&
      (f.message.result as { status?: string }).status === 'needs_confirmation',
  )
  const confirmId = (pending.message.result as { confirmId: string }).confirmId
  const oldClient = pending.message.clientId
  expect(await setup.server.server.store.getConfirm(confirmId)).toMatchObject({
    state: 'pending',
    clientId: oldClient,
  })

  const from = demo.frames.length
  const newClient = await demo.reload()
  expect(newClient).not.toBe(oldClient)
  // The user's pending decision outlives the page load: the new one shows its card again, with a new confirmId.
  const asked = await demo.waitForFrame(
    (f) =>
      f.direction === 'sent' &&
      f.message.clientId === newClient &&
      f.message.type === 'result' &&
      (f.message.result as { status?: string }).status === 'needs_confirmation',
    10_000,
    from,
  )
  const newConfirmId = (asked.message.result as { confirmId: string }).confirmId
  expect(newConfirmId).not.toBe(confirmId)
  const card = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')
  await card.waitFor()
  expect(await demo.page.getByTestId('confirm-card').count()).toBe(1)
  await vi.waitFor(
    async () => expect((await setup.server.server.store.getConfirm(confirmId))?.state).toBe('expired'),
    {
      timeout: 5000,
    },
  )

  // The new page cannot approve it either: a `confirmed` for it from the new page load is rejected.
  const rejectedBefore = setup.server.rejections.length
  await demo.page.evaluate(
    ([id, clientId]) => {
      const socket = new WebSocket(
        `${location.origin.replace(/^http/, 'ws')}/toolmark/ws?conversation=${encodeURIComponent(localStorage.getItem('toolmark-demo:conversation') ?? '')}`,
      )
      socket.onopen = () => {
        socket.send(
          JSON.stringify({
            protocol: 1,
            type: 'confirmed',
            clientId,
            confirmId: id,
            result: { status: 'ok', data: { name: 'Robotics' } },
          }),
        )
      }
    },
    [confirmId, newClient] as const,
  )
  await vi.waitFor(() => expect(setup.server.rejections.length).toBeGreaterThan(rejectedBefore), {
    timeout: 5000,
  })
  expect(setup.server.rejections.at(-1)).toMatchObject({ type: 'confirmed' })
  expect(await demo.challengeNames()).not.toContain('Robotics')

  // The card of this page load decides it: approved, the tool runs once.
  await card.getByTestId('confirm-approve').click()
  await vi.waitFor(async () => expect(await demo.challengeNames()).toContain('Robotics'), { timeout: 5000 })
  expect((await demo.challengeNames()).filter((name) => name === 'Robotics')).toHaveLength(1)
})

test('a server restart while a card is pending changes nothing: the reloaded page asks again, approved once', async () => {
  const demo = await open()
  await demo.ask('Create a challenge called Quantum Computing')
  const pending = await demo.waitForFrame(
    (f) =>
      f.direction === 'sent' &&
      f.message.type === 'result' &&
      (f.message.result as { status?: string }).status === 'needs_confirmation',
  )
  const confirmId = (pending.message.result as { confirmId: string }).confirmId

  // The server stops (its page connections and waiters gone) and starts again on the same SQLite file.
  await setup.server.restart()
  const from = demo.frames.length
  const newClient = await demo.reload()
  expect(newClient).not.toBe(pending.message.clientId)
  const asked = await demo.waitForFrame(
    (f) =>
      f.direction === 'sent' &&
      f.message.clientId === newClient &&
      f.message.type === 'result' &&
      (f.message.result as { status?: string }).status === 'needs_confirmation',
    10_000,
    from,
  )
  expect((asked.message.result as { confirmId: string }).confirmId).not.toBe(confirmId)
  const card = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')
  await card.waitFor()
  expect(await demo.page.getByTestId('confirm-card').count()).toBe(1)
  expect(await demo.challengeNames()).not.toContain('Quantum Computing')
  await vi.waitFor(
    async () => expect((await setup.server.server.store.getConfirm(confirmId))?.state).toBe('expired'),
    { timeout: 5000 },
  )

  // Approved on the reloaded page: the tool runs once and the agent, on the new server, acknowledges it.
  const before = (await demo.messages('assistant')).length
  await card.getByTestId('confirm-approve').click()
  const followUp = await demo.waitForAssistant(before)
  expect(followUp.join('\n')).toContain('Quantum Computing')
  expect((await demo.challengeNames()).filter((name) => name === 'Quantum Computing')).toHaveLength(1)
})
