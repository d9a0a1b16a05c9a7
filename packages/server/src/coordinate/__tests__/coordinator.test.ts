import type { AgentToPageMessage } from '@toolmark/protocol'
import { describe, expect, it } from 'vitest'
import { NO_PAGE_RESULT, Relay } from '../../relay/relay.ts'
import { createMemoryStore } from '../../store/memory.ts'
import type { Coordinator, Located, PageHost } from '../coordinator.ts'
import { LocalCoordinator } from '../local.ts'

/**
 * A coordinator of instance `A` that knows page load `page-b` to be held by instance `B`, and records what the
 * relay asks of it. The relay cannot tell it from Redis: it only talks to the port.
 */
function twoInstances() {
  const seen = {
    host: undefined as PageHost | undefined,
    delivered: [] as Array<{
      clientId: string
      message: AgentToPageMessage
      to?: readonly string[]
      call?: unknown
    }>,
  }
  const coordinator: Coordinator = Object.assign(new LocalCoordinator(), {
    instance: 'A',
    attachPages(host: PageHost) {
      seen.host = host
      return () => {}
    },
    // Other instances' calls are pending in the shared store: none is timed out here.
    earlierCalls: async () => {},
    locate: (_conversationId: string, clientId: string): Promise<Located> =>
      Promise.resolve({ found: clientId === 'page-b' ? ['B'] : undefined }),
    deliver(
      _conversationId: string,
      clientId: string,
      message: AgentToPageMessage,
      to?: readonly string[],
      call?: { id: string; secrets: readonly string[] },
    ) {
      seen.delivered.push({ clientId, message, ...(to ? { to } : {}), ...(call ? { call } : {}) })
    },
  })
  return { coordinator, seen }
}

async function bound(clientId: string) {
  const store = createMemoryStore()
  const user = await store.createUser()
  const conversation = await store.createConversation(user.id)
  await store.setActiveClient(conversation.id, clientId)
  const { coordinator, seen } = twoInstances()
  const relay = new Relay({ store, deadlineMs: 5000, coordinator, log: () => {} })
  const scope = { userId: user.id, conversationId: conversation.id, toolCallId: 'tc-1' }
  return { store, seen, relay, scope }
}

describe('the relay reaches other instances only through its Coordinator', () => {
  it('hands a call for a page load held elsewhere to that instance, with its secrets, and resolves with the outcome that comes back', async () => {
    const { store, seen, relay, scope } = await bound('page-b')
    const outcome = relay.request(scope, {
      kind: 'call',
      tool: 'pay',
      input: { card: '4242 4242 4242 4242' },
      secrets: ['4242 4242 4242 4242'],
    })
    await expect.poll(() => seen.delivered.length).toBe(1)
    const [sent] = seen.delivered
    const call = sent!.message
    expect(call).toMatchObject({ type: 'call', clientId: 'page-b' })
    expect(sent).toMatchObject({
      clientId: 'page-b',
      to: ['B'],
      call: { id: call.id, secrets: ['4242 4242 4242 4242'] },
    })
    // The binding names the waiting instance, so the holder's answer finds its way back.
    expect((await store.getCall(call.id))?.instance).toBe('A')
    await seen.host!.outcome({ callId: call.id, clientId: 'page-b', result: { status: 'ok' } })
    expect(await outcome).toEqual({
      callId: call.id,
      clientId: 'page-b',
      result: { status: 'ok' },
      timedOut: false,
    })
    await relay.close()
  })

  it('answers "no page" without sending anything when no instance holds the bound page load', async () => {
    const { seen, relay, scope } = await bound('page-nowhere')
    const outcome = await relay.request(scope, { kind: 'describe', tool: 'pay' })
    expect(outcome.result).toEqual(NO_PAGE_RESULT)
    expect(seen.delivered).toEqual([])
    await relay.close()
  })
})
