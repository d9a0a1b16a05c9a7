import { describe, expect, it, onTestFinished } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { Browser, readEvents } from '../../__tests__/support/http-client.ts'
import { toolCall } from '../../__tests__/support/scripted-provider.ts'
import { DEPLOYMENT, type TestServer, testServer } from '../../__tests__/support/test-server.ts'
import type { ChatEvent, ChatMessage, ToolPart } from '../../shared/contract.ts'
import type { ProviderEvent, ProviderRequest } from '../types.ts'

/*
 * Streamed replies and tool parts on the chat's event stream, on one instance and on three sharing Redis
 * (the `server-shared` project runs this file too).
 */

const CARD = '4242 4242 4242 4242'
const CVC = '987'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A step of a {@link PacedProvider}: events, each after `gapMs`, and an optional gate to wait on first. */
interface Step {
  events: ProviderEvent[]
  gapMs?: number
  /** Waited on after the event at this index was yielded. */
  pauseAfter?: { index: number; until: Promise<void> }
}

/** A provider that plays back scripted steps with pauses between the events, as a model's stream comes. */
class PacedProvider {
  readonly name = 'paced'
  constructor(readonly steps: Step[]) {}
  async *stream(_request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const step = this.steps.shift() ?? { events: [{ type: 'text', delta: 'ok' }] }
    for (const [i, event] of step.events.entries()) {
      if (step.gapMs) await sleep(step.gapMs)
      yield event
      if (step.pauseAfter?.index === i) await step.pauseAfter.until
    }
  }
}

const text = (delta: string): ProviderEvent => ({ type: 'text', delta })

/** A gate a test opens. */
function gate(): { until: Promise<void>; open: () => void } {
  let open = () => {}
  const until = new Promise<void>((resolve) => {
    open = resolve
  })
  return { until, open }
}

/** The chat events of `conversation` on `base` from now on (parsed), kept in the returned array as they come. */
async function chatEvents(
  t: TestServer,
  browser: Browser,
  conversation: string,
  base?: string,
): Promise<ChatEvent[]> {
  const chat = new Browser(base ?? t.server.url)
  chat.cookie = browser.cookie
  const controller = new AbortController()
  onTestFinished(() => controller.abort())
  const response = await chat.fetch(`/api/conversations/${conversation}/events`, {
    signal: controller.signal,
  })
  const events: ChatEvent[] = []
  const reader = readEvents(response.body!)[Symbol.asyncIterator]()
  // The first event is the busy flag (or the text so far, then the busy flag): read it so the stream is open.
  const first = await reader.next()
  if (!first.done) events.push(JSON.parse(first.value.data) as ChatEvent)
  void (async () => {
    for (;;) {
      const next = await reader.next().catch(() => ({ done: true as const, value: undefined }))
      if (next.done) return
      events.push(JSON.parse(next.value.data) as ChatEvent)
    }
  })()
  return events
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

const deltas = (events: readonly ChatEvent[], messageId?: string) =>
  events.filter(
    (e): e is Extract<ChatEvent, { type: 'text-delta' }> =>
      e.type === 'text-delta' && (messageId === undefined || e.messageId === messageId),
  )
const messages = (events: readonly ChatEvent[]) =>
  events
    .filter((e): e is Extract<ChatEvent, { type: 'message' }> => e.type === 'message')
    .map((e) => e.message)
const parts = (events: readonly ChatEvent[]) =>
  events.filter((e): e is Extract<ChatEvent, { type: 'tool' }> => e.type === 'tool').map((e) => e.part)

/** The instances to open chat streams on: each of three, or the one. */
const bases = (t: TestServer) => t.server.instances

describe(`streamed replies (${DEPLOYMENT === 'single' ? 'one instance' : 'three instances'})`, () => {
  it('streams the reply in coalesced, masked deltas under the id of the message that ends it', async () => {
    const words = 'Here is what I found on the page for you today, step by step. '.repeat(3).split(/(?<= )/)
    const provider = new PacedProvider([
      {
        gapMs: 5,
        events: [
          ...words.map(text),
          // A card number and a code split across deltas: neither may ever be sent.
          text('Your card 4242 4242 '),
          text('4242 4242 is on file, and the CVC '),
          text(`is ${CVC.slice(0, 1)}`),
          text(`${CVC.slice(1)} as you said. `),
          ...words.map(text),
        ],
      },
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const streams = await Promise.all(bases(t).map((base) => chatEvents(t, browser, conversation, base)))

    await browser.say(conversation, 'what is on the page?')
    await t.server.agent.idle(conversation)
    for (const events of streams) {
      await until(() => messages(events).some((m) => m.role === 'assistant'), 'the reply')
      const reply = messages(events).find((m) => m.role === 'assistant')!
      const mine = deltas(events, reply.id)
      // Streamed: several deltas, far fewer than the provider's deltas, each before the message.
      expect(mine.length).toBeGreaterThan(1)
      expect(mine.length).toBeLessThan(words.length)
      expect(events.indexOf(mine.at(-1)!)).toBeLessThan(
        events.findIndex((e) => e.type === 'message' && e.message.id === reply.id),
      )
      // What streamed is the start of the final, masked text.
      expect(reply.text.startsWith(mine.map((d) => d.delta).join(''))).toBe(true)
      expect(reply.text).toContain('**** 4242 is on file')
      const all = JSON.stringify(events)
      expect(all).not.toContain(CARD)
      expect(all).not.toContain(CARD.replaceAll(' ', ''))
      expect(all).not.toMatch(new RegExp(`[^0-9]${CVC}[^0-9]`))
    }
    // History holds the whole message once.
    const history = await browser.messages(conversation)
    expect(history.filter((m) => m.role === 'assistant')).toHaveLength(1)
  })

  it('a stream opened mid-message, on any instance, first gets the text so far', async () => {
    const paused = gate()
    const first = 'The first half of a long answer, streamed before anyone listens here. '
    const provider = new PacedProvider([
      {
        events: [text(first), text('More words arrive while the page waits. '), text('Then the end of it.')],
        pauseAfter: { index: 1, until: paused.until },
      },
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const early = await chatEvents(t, browser, conversation)
    await browser.say(conversation, 'tell me')
    await until(() => deltas(early).length > 0, 'the first delta')
    await sleep(120) // the coalescing window has passed: everything the hold-back allows was sent
    const sofar = deltas(early)
      .map((d) => d.delta)
      .join('')
    expect(first.startsWith(sofar.slice(0, first.length)) || sofar.startsWith(first)).toBe(true)
    // Late streams on every instance (one of them runs the turn, the others do not).
    onTestFinished(paused.open)
    const late = await Promise.all(bases(t).map((base) => chatEvents(t, browser, conversation, base)))
    for (const events of late) {
      await until(() => deltas(events).length > 0, 'the text so far')
      // Its first delta is the text so far (in shared mode it may follow the busy flag).
      expect(deltas(events)[0]).toEqual({
        type: 'text-delta',
        messageId: deltas(early)[0]!.messageId,
        delta: sofar,
      })
    }
    paused.open()
    await t.server.agent.idle(conversation)
    for (const events of [early, ...late]) {
      await until(() => messages(events).some((m) => m.role === 'assistant'), 'the reply')
      const reply = messages(events).find((m) => m.role === 'assistant')!
      expect(reply.text).toBe(`${first}More words arrive while the page waits. Then the end of it.`)
      // Each stream's deltas add up to a start of the final text (no repeat, no gap).
      expect(
        reply.text.startsWith(
          deltas(events, reply.id)
            .map((d) => d.delta)
            .join(''),
        ),
      ).toBe(true)
    }
  })

  it('a value the model is about to pass at a sensitive path is held back until the call masks it', async () => {
    const secret = 'zq7-k9x2'
    const pay = {
      ...fakeTool('billing.pay', 'Pay', { readOnly: true }, { type: 'object' }, () => ({ status: 'ok' })),
      sensitivePaths: ['memo'],
    }
    const provider = new PacedProvider([
      {
        gapMs: 5,
        events: [
          text('I will pay now, with the memo you gave me, which is '),
          text(`${secret} exactly as typed, and nothing else at all. `),
          text('Paying now, please wait a moment for the page to answer.'),
          toolCall('c1', 'page_call', { tool: 'billing.pay', input: { memo: secret } }),
        ],
      },
      { events: [text('Paid.')] },
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    await FakePage.open(t.server.url, browser, conversation, [pay])
    const events = await chatEvents(t, browser, conversation)
    await browser.say(conversation, `pay with memo ${secret}`)
    await t.server.agent.idle(conversation)
    await until(() => messages(events).some((m) => m.text === 'Paid.'), 'the reply')
    // The user's own message shows what they typed; nothing the agent sent holds it.
    const agentSide = events.filter((e) => !(e.type === 'message' && e.message.role === 'user'))
    expect(JSON.stringify(agentSide)).not.toContain(secret)
    expect(deltas(events).length).toBeGreaterThan(0) // what came before the word streamed
    const history = await browser.messages(conversation)
    expect(JSON.stringify(history.filter((m) => m.role !== 'user'))).not.toContain(secret)
  })
})

describe(`tool parts (${DEPLOYMENT === 'single' ? 'one instance' : 'three instances'})`, () => {
  it('shows a page call running, then done with its summary, and replays it from history', async () => {
    const search = fakeTool(
      'challenges.search',
      'Search challenges',
      { readOnly: true },
      { type: 'object', properties: { query: { type: 'string' } } },
      () => ({ status: 'ok', data: { items: [1, 2, 3] } }),
      'Search challenges',
    )
    const provider = new PacedProvider([
      {
        events: [
          toolCall('c1', 'page_call', { tool: 'challenges.search', input: { query: 'kite', card: CARD } }),
        ],
      },
      { events: [text('Found 3.')] },
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const page = await FakePage.open(t.server.url, browser, conversation, [search])
    page.autoAnswer = false // the call runs until the test answers it
    const streams = await Promise.all(bases(t).map((base) => chatEvents(t, browser, conversation, base)))
    await browser.say(conversation, 'find kite challenges')
    for (const events of streams) await until(() => parts(events).length > 0, 'the running part')
    const running: ToolPart = {
      callId: 'c1',
      tool: 'challenges.search',
      title: 'Search challenges',
      input: '{"query":"kite","card":"**** 4242"}',
      state: 'running',
    }
    for (const events of streams) expect(parts(events)).toEqual([running])
    const call = page.inbox.find((m) => m.type === 'call') ?? (await page.next((m) => m.type === 'call'))
    page.result((call as { id: string }).id, { status: 'ok', data: { items: [1, 2, 3] } })
    await t.server.agent.idle(conversation)
    const done: ToolPart = { ...running, state: 'done', summary: 'ok (3 results)' }
    for (const events of streams) {
      await until(() => messages(events).some((m) => m.text === 'Found 3.'), 'the reply')
      expect(parts(events)).toEqual([running, done])
      expect(messages(events).find((m) => m.role === 'tool')?.part).toEqual(done)
    }
    const history = (await (await browser.fetch(`/api/conversations/${conversation}`)).json()) as {
      messages: ChatMessage[]
    }
    expect(history.messages.map((m) => [m.role, m.part])).toEqual([
      ['user', undefined],
      ['tool', done],
      ['assistant', undefined],
    ])
  })

  it('a call that needs the user waits, then ends with the confirmation, in events and history', async () => {
    const save = fakeTool(
      'challenges.save',
      'Save a challenge',
      { consequential: true },
      { type: 'object', properties: { title: { type: 'string' } } },
      () => ({ status: 'ok', data: { saved: true } }),
    )
    const provider = new PacedProvider([
      { events: [toolCall('c1', 'page_call', { tool: 'challenges.save', input: { title: 'Kite' } })] },
      { events: [text('Approve it in the page.')] },
      { events: [text('Saved.')] },
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const page = await FakePage.open(t.server.url, browser, conversation, [save])
    const events = await chatEvents(t, browser, conversation)
    await browser.say(conversation, 'save Kite')
    await t.server.agent.idle(conversation)
    const confirmId = [...page.pending.keys()][0]!
    await until(() => parts(events).some((p) => p.state === 'waiting'), 'the waiting part')
    expect(parts(events).at(-1)).toMatchObject({ callId: 'c1', state: 'waiting', confirmId })
    await page.approve(confirmId)
    await t.server.agent.idle(conversation)
    await until(() => messages(events).some((m) => m.text === 'Saved.'), 'the follow-up')
    expect(parts(events).map((p) => p.state)).toEqual(['running', 'waiting', 'done'])
    expect(parts(events).at(-1)).not.toHaveProperty('confirmId')
    const history = (await (await browser.fetch(`/api/conversations/${conversation}`)).json()) as {
      messages: ChatMessage[]
    }
    expect(history.messages.flatMap((m) => (m.part ? [[m.part.callId, m.part.state]] : []))).toEqual([
      ['c1', 'waiting'],
      ['c1', 'done'],
    ])
  })
})
