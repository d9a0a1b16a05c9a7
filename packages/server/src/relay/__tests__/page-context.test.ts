import { MAX_CONTEXT_TOTAL } from '@toolmark/protocol/extensions'
import { describe, expect, it } from 'vitest'
import { FakePage } from '../../__tests__/support/fake-page.ts'
import { ScriptedProvider } from '../../__tests__/support/scripted-provider.ts'
import { DEPLOYMENT, testServer } from '../../__tests__/support/test-server.ts'
import { PAGE_CONTEXT_NOTE } from '../../agent/page-context.ts'
import type { AgentMessage } from '../../agent/types.ts'

/*
 * The opt-in `context` extension of bridge protocol v1 on the server: the offer is accepted, the page load's
 * latest context is kept (masked) and every turn's model request carries it as marked page data, right before
 * the latest user message. On one instance and on three sharing PostgreSQL and Redis (the `server-shared`
 * project runs this file too: the turn runs wherever the message lands, and reads the context from the store).
 */

const CARD = '4242 4242 4242 4242'

/** A server with a recording provider, a conversation and its page load (which offered nothing yet). */
async function setup(options: { store?: 'memory'; transport?: 'websocket' | 'http' } = {}) {
  const provider = new ScriptedProvider([])
  const t = await testServer({ provider, ...(options.store ? { store: options.store } : {}) })
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const page = await FakePage.open(t.server.url, browser, conversation, [], {
    transport: options.transport ?? 'websocket',
  })
  let rev = 0
  const sendContext = async (entries: unknown[], at = ++rev) => {
    page.send({ protocol: 1, type: 'context', clientId: page.clientId, rev: at, entries })
    await page.flush()
  }
  const turn = async (text: string): Promise<AgentMessage[]> => {
    await browser.say(conversation, text)
    await t.server.agent.idle(conversation)
    return provider.requests.at(-1)!.messages as AgentMessage[]
  }
  return { t, provider, browser, conversation, page, sendContext, turn }
}

/** The context messages of a request's messages (marked as page data). */
const contextOf = (messages: readonly AgentMessage[]) =>
  messages.filter((m) => m.role === 'user' && m.pageData)

/** The entries a context message carries after the note that tells the model it is page data. */
const entriesOf = (m: AgentMessage | undefined) =>
  m?.role === 'user' && m.text.startsWith(`${PAGE_CONTEXT_NOTE}\n`)
    ? JSON.parse(m.text.slice(PAGE_CONTEXT_NOTE.length + 1))
    : undefined

describe(`the context extension (${DEPLOYMENT === 'single' ? 'one instance' : 'three instances'})`, () => {
  it.each(['websocket', 'http'] as const)(
    'accepts an offer of context beside progress (%s)',
    async (transport) => {
      const t = await testServer()
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      const page = await FakePage.open(t.server.url, browser, conversation, [], { transport })
      page.send({ protocol: 1, type: 'extensions', clientId: page.clientId, offer: ['context', 'progress'] })
      const answer = await page.next((m) => (m as { type: string }).type === 'extensions')
      expect(answer).toEqual({
        protocol: 1,
        type: 'extensions',
        clientId: page.clientId,
        accept: ['context', 'progress'], // in the offer's order
      })
      expect(t.rejections).toEqual([])
    },
  )

  it.each(['websocket', 'http'] as const)(
    "shows the model the page's latest context, masked and marked as page data, and follows its changes (%s)",
    async (transport) => {
      const { t, sendContext, turn, provider } = await setup({ transport })
      await sendContext([
        { name: 'orders.current', description: 'The order on screen', value: { id: 7, card: CARD } },
        { name: 'selection', description: 'Selected rows', value: [1, 2] },
      ])
      const first = await turn('what is this order?')
      expect(contextOf(first)).toHaveLength(1)
      // A card number the page left unmasked is masked by the server, like every value it keeps.
      expect(entriesOf(contextOf(first)[0])).toEqual([
        { name: 'orders.current', description: 'The order on screen', value: { id: 7, card: '**** 4242' } },
        { name: 'selection', description: 'Selected rows', value: [1, 2] },
      ])
      // Right before the user's message, which stays the last one.
      expect(first.slice(-2).map((m) => m.role)).toEqual(['user', 'user'])
      expect(first.at(-1)).toEqual({ role: 'user', text: 'what is this order?' })

      await sendContext([{ name: 'selection', description: 'Selected rows', value: [3] }])
      const second = await turn('and now?')
      expect(contextOf(second)).toHaveLength(1)
      expect(entriesOf(contextOf(second)[0])).toEqual([
        { name: 'selection', description: 'Selected rows', value: [3] },
      ])
      expect(second.at(-1)).toEqual({ role: 'user', text: 'and now?' })
      // The system prompt and the tools are the same bytes with and without context (prompt caching holds).
      expect(provider.requests[1]!.system).toBe(provider.requests[0]!.system)
      expect(JSON.stringify(provider.requests[1]!.tools)).toBe(JSON.stringify(provider.requests[0]!.tools))

      // Nothing of it is logged, and nothing unmasked is stored.
      expect(t.logs.join('\n')).not.toContain('Selected rows')
      expect(JSON.stringify(provider.requests)).not.toContain(CARD)
      expect(t.rejections).toEqual([])
    },
  )

  it('shows nothing of a page that never sent a context, or whose context is empty', async () => {
    const { sendContext, turn } = await setup()
    expect(contextOf(await turn('hello'))).toEqual([])
    await sendContext([{ name: 'selection', description: 'Selected rows', value: [1] }])
    expect(contextOf(await turn('and now?'))).toHaveLength(1)
    await sendContext([])
    expect(contextOf(await turn('and now?'))).toEqual([])
  })

  it('keeps the context of the highest rev: an older one that arrives late is refused', async () => {
    const { t, sendContext, turn } = await setup()
    await sendContext([{ name: 'selection', description: 'Selected rows', value: [2] }], 5)
    await sendContext([{ name: 'selection', description: 'Selected rows', value: [1] }], 4)
    expect(entriesOf(contextOf(await turn('which rows?'))[0])).toEqual([
      { name: 'selection', description: 'Selected rows', value: [2] },
    ])
    expect(t.rejections.map((r) => [r.type, r.reason])).toEqual([['context', 'old_rev']])
  })

  it("refuses another conversation's page load, and a context larger than the protocol allows", async () => {
    const { t, page, sendContext, turn, browser } = await setup()
    const other = await browser.createConversation()
    const elsewhere = await FakePage.open(t.server.url, browser, other, [])
    // A page load bound to another conversation, sending on this conversation's connection.
    page.send({
      protocol: 1,
      type: 'context',
      clientId: elsewhere.clientId,
      rev: 1,
      entries: [{ name: 'x', description: 'd', value: 1 }],
    })
    const big = 'x'.repeat(MAX_CONTEXT_TOTAL / 2)
    await sendContext([
      { name: 'a', description: 'd', value: big },
      { name: 'b', description: 'd', value: big },
    ])
    expect(t.rejections.map((r) => [r.type, r.reason, r.detail])).toEqual([
      ['context', 'mismatch', 'not a page load of this conversation'],
      ['context', 'invalid', 'too large'],
    ])
    expect(contextOf(await turn('anything?'))).toEqual([])
  })

  if (DEPLOYMENT === 'single')
    it('works the same with the in-memory store', async () => {
      const { sendContext, turn } = await setup({ store: 'memory' })
      await sendContext([{ name: 'selection', description: 'Selected rows', value: [9] }])
      expect(entriesOf(contextOf(await turn('which rows?'))[0])).toEqual([
        { name: 'selection', description: 'Selected rows', value: [9] },
      ])
    })
})
