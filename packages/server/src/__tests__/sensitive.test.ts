import { afterEach, describe, expect, it } from 'vitest'
import { FakePage, fakeTool } from './support/fake-page.ts'
import { readEvents } from './support/http-client.ts'
import { ScriptedProvider, toolCall } from './support/scripted-provider.ts'
import { type TestServer, testServer } from './support/test-server.ts'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const NUMBER = '4111 1111 1111 1111'
const CODE = '737'
const OTP = 'k9x2z' // no heuristic would find it: only the page's writeOnly annotation marks it

/** Everything the server kept or showed: rows, confirmation bindings, log lines, the chat. */
async function everything(t: TestServer, conversation: string, chat: string): Promise<string> {
  const rows = await t.server.store.listMessages(conversation)
  const confirms = await Promise.all(
    rows.flatMap((m) => {
      const content = m.agent?.role === 'tool' ? m.agent.content : ''
      const id = /"confirmId":"([^"]+)"/.exec(content)?.[1]
      return id ? [t.server.store.getConfirm(id)] : []
    }),
  )
  return JSON.stringify({ rows, confirms, logs: t.logs, chat })
}

function leaks(text: string): string[] {
  const found: string[] = []
  if (text.includes(NUMBER) || text.includes(NUMBER.replaceAll(' ', ''))) found.push('card number')
  // A standalone number: the digits inside an id (a UUID's hex, `…-737a…`) are not the CVC.
  if (new RegExp(`(^|[^0-9A-Za-z])${CODE}([^0-9A-Za-z]|$)`).test(text)) found.push('CVC')
  if (text.includes(OTP)) found.push('one-time code')
  return found
}

async function chatStream(browser: Awaited<ReturnType<TestServer['browser']>>, id: string) {
  const controller = new AbortController()
  cleanup.push(async () => controller.abort())
  const response = await browser.fetch(`/api/conversations/${id}/events`, { signal: controller.signal })
  const events: string[] = []
  const reader = readEvents(response.body!)[Symbol.asyncIterator]()
  await reader.next()
  void (async () => {
    for (;;) {
      const next = await reader.next().catch(() => ({ done: true as const, value: undefined }))
      if (next.done) return
      events.push(next.value.data)
    }
  })()
  return events
}

describe('nothing sensitive is stored, logged, streamed or put into a later prompt', () => {
  it('masks the paths a page declares in its manifest entry, before any describe, and the heuristics catch the rest', async () => {
    const input = {
      card: { number: NUMBER, securityCode: CODE },
      cardCvc: CODE,
      amount: Number(NUMBER.replaceAll(' ', '')),
      note: `my CVC is ${CODE}`,
    }
    const provider = new ScriptedProvider([
      () => [toolCall('tc1', 'page_call', { tool: 'billing.pay', input })],
      () => [{ type: 'text', delta: 'Waiting for your approval.' }],
      () => [{ type: 'text', delta: 'You are welcome.' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const pay = {
      ...fakeTool('billing.pay', 'Pay with a card', { consequential: true }, { type: 'object' }),
      sensitivePaths: ['card.number', 'card.securityCode'],
      // A careless third-party page that repeats the secrets in its summary.
      summarize: (i: Record<string, unknown>) => {
        const card = i.card as { number: string; securityCode: string }
        return `Pay with card ${card.number} (code ${card.securityCode})`
      },
    }
    const page = await FakePage.open(t.server.url, browser, conversation, [pay])
    const streamed = await chatStream(browser, conversation)
    await browser.say(conversation, `pay with ${NUMBER}, my CVC is ${CODE}`)
    await t.server.agent.idle(conversation)

    // The page got the real values, and so did the rest of the same turn (in memory).
    expect(page.calls[0]!.input).toEqual(input)
    expect(JSON.stringify(provider.requests[1]!.messages)).toContain(NUMBER)

    await browser.say(conversation, 'thanks')
    await t.server.agent.idle(conversation)
    expect(leaks(JSON.stringify(provider.requests[2]!.messages))).toEqual([]) // a later prompt
    const chat = JSON.stringify(await browser.messages(conversation))
    expect(leaks(await everything(t, conversation, chat))).toEqual([])
    expect(leaks(streamed.join('\n'))).toEqual([])
    const stored = await t.server.store.listMessages(conversation)
    const call = stored.find((m) => m.agent?.role === 'assistant' && m.agent.toolCalls.length > 0)
    expect(call?.agent).toMatchObject({
      toolCalls: [
        {
          input: {
            tool: 'billing.pay',
            input: {
              card: { number: '[redacted]', securityCode: '[redacted]' },
              cardCvc: '[redacted]',
              amount: '[redacted]', // '**** 1111', the heuristic's form of a known secret, goes too
              note: 'my CVC is [redacted]', // the exact secret is cut out first
            },
          },
        },
      ],
    })
    const confirmId = [...page.pending.keys()][0]!
    expect((await t.server.store.getConfirm(confirmId))?.summary).toBe(
      'Pay with card [redacted] (code [redacted])',
    )
  })

  it("masks the paths a tool's described input schema marks writeOnly", async () => {
    const schema = {
      type: 'object',
      properties: { email: { type: 'string' }, otp: { type: 'string', writeOnly: true } },
    }
    const verify = fakeTool(
      'account.verify',
      'Verify the account with a one-time code',
      { readOnly: true },
      schema,
      (i) => ({
        status: 'ok',
        data: { verified: true, echo: i.otp },
      }),
    )
    const provider = new ScriptedProvider([
      () => [toolCall('d1', 'page_describe', { tool: 'account.verify' })],
      () => [
        toolCall('c1', 'page_call', { tool: 'account.verify', input: { email: 'a@b.example', otp: OTP } }),
      ],
      () => [{ type: 'text', delta: `Verified with ${OTP}.` }],
      () => [{ type: 'text', delta: 'ok' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    await FakePage.open(t.server.url, browser, conversation, [verify])
    await browser.say(conversation, `verify me, the code is ${OTP}`)
    await t.server.agent.idle(conversation)
    await browser.say(conversation, 'and now?')
    await t.server.agent.idle(conversation)
    expect(leaks(JSON.stringify(provider.requests.at(-1)!.messages))).toEqual([])
    const chat = JSON.stringify(await browser.messages(conversation))
    expect(leaks(await everything(t, conversation, chat))).toEqual([])
    expect(chat).toContain('verify me, the code is [redacted]') // the typed message, re-masked once known
  })

  it('masks a card number nested deeper than 64 levels in a tool call', async () => {
    let deep: unknown = { number: NUMBER }
    for (let i = 0; i < 80; i++) deep = { next: deep }
    const provider = new ScriptedProvider([
      () => [toolCall('tc1', 'page_call', { tool: 'notes.save', input: { deep } })],
      () => [{ type: 'text', delta: 'ok' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    await FakePage.open(t.server.url, browser, conversation, [
      fakeTool('notes.save', 'Save', { readOnly: true }, { type: 'object' }),
    ])
    await browser.say(conversation, 'save it')
    await t.server.agent.idle(conversation)
    expect(leaks(await everything(t, conversation, ''))).toEqual([])
  })

  it('forgets a value learned to be secret in a later turn: earlier rows, summaries and later prompts lose it', async () => {
    const CARD = '4242 4242 4242 4242'
    const input = { card: { number: CARD }, amount: 12 }
    const provider = new ScriptedProvider([
      () => [toolCall('tc0', 'page_call', { tool: 'notes.save', input: { text: `card ${CARD}` } })],
      () => [{ type: 'text', delta: 'Noted, once you approve.' }],
      () => [toolCall('tc1', 'page_call', { tool: 'billing.pay', input })],
      () => [{ type: 'text', delta: 'Paid.' }],
      () => [{ type: 'text', delta: 'You are welcome.' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const save = {
      ...fakeTool('notes.save', 'Save a note', { consequential: true }, { type: 'object' }),
      summarize: (i: Record<string, unknown>) => `Save the note "${String(i.text)}"`,
    }
    const pay = {
      ...fakeTool('billing.pay', 'Pay with a card', { readOnly: true }, { type: 'object' }),
      sensitivePaths: ['card.number'],
    }
    const page = await FakePage.open(t.server.url, browser, conversation, [save, pay])
    const stored = async () =>
      JSON.stringify({
        rows: await t.server.store.listMessages(conversation),
        confirms: await t.server.store.listConfirms(conversation),
      })
    // Turn 1: the number is typed and saved in a note, but nothing marks it secret yet (the
    // heuristics keep `**** 4242`).
    await browser.say(conversation, `my card is ${CARD}, note it`)
    await t.server.agent.idle(conversation)
    expect(await stored()).toContain('4242')
    // Turn 2: a page_call puts it at a sensitive path: now it is known to be secret.
    await browser.say(conversation, 'pay 12 with it')
    await t.server.agent.idle(conversation)
    expect(page.calls[1]!.input).toEqual(input)
    // The rest of turn 2 keeps its own call's real values, but no longer what turn 1 left.
    expect(provider.requests[3]!.messages[0]).toEqual({
      role: 'user',
      text: 'my card is [redacted], note it',
    })
    expect(await stored()).not.toContain('4242')
    expect((await t.server.store.listConfirms(conversation))[0]?.summary).toBe(
      'Save the note "card [redacted]"',
    )
    expect(JSON.stringify(await browser.messages(conversation))).not.toContain('4242')
    // Turn 3: the model reads the history back from the store.
    await browser.say(conversation, 'thanks')
    await t.server.agent.idle(conversation)
    const next = provider.requests[4]!
    expect(next.messages.at(-1)).toEqual({ role: 'user', text: 'thanks' })
    expect(JSON.stringify(next)).not.toContain('4242')
  })
})
