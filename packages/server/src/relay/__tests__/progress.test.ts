import { MAX_PROGRESS_PER_SECOND } from '@toolmark/protocol/extensions'
import { describe, expect, it, onTestFinished } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { Browser, readEvents } from '../../__tests__/support/http-client.ts'
import { toolCall } from '../../__tests__/support/scripted-provider.ts'
import { DEPLOYMENT, type TestServer, testServer } from '../../__tests__/support/test-server.ts'
import type { ProviderEvent, ProviderRequest } from '../../agent/types.ts'
import type { ChatEvent } from '../../shared/contract.ts'

/*
 * The opt-in `progress` extension of bridge protocol v1 on the server: the offer is accepted, a running call's
 * progress reaches the chat (masked, rate-limited, never past the call's end or deadline), on one instance and
 * on three sharing Redis (the `server-shared` project runs this file too).
 */

const CARD = '4242 4242 4242 4242'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

/** One scripted turn that calls `work`, then answers in text. */
class OneCall {
  readonly name = 'one-call'
  #step = 0
  async *stream(_request: ProviderRequest): AsyncIterable<ProviderEvent> {
    if (this.#step++ === 0) yield toolCall('tc-1', 'page_call', { tool: 'work', input: {} })
    else yield { type: 'text', delta: 'Done.' }
  }
}

/** The chat events of `conversation` on every instance, as they come. */
async function chatEvents(t: TestServer, browser: Browser, conversation: string): Promise<ChatEvent[][]> {
  return Promise.all(
    t.server.instances.map(async (base) => {
      const chat = new Browser(base)
      chat.cookie = browser.cookie
      const controller = new AbortController()
      onTestFinished(() => controller.abort())
      const response = await chat.fetch(`/api/conversations/${conversation}/events`, {
        signal: controller.signal,
      })
      const events: ChatEvent[] = []
      const reader = readEvents(response.body!)[Symbol.asyncIterator]()
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
    }),
  )
}

const progressOf = (events: readonly ChatEvent[]) =>
  events.filter((e): e is Extract<ChatEvent, { type: 'tool-progress' }> => e.type === 'tool-progress')

async function running(config: { callDeadlineMs?: number } = {}) {
  const work = fakeTool('work', 'Long work', { readOnly: true }, { type: 'object' }, () => ({ status: 'ok' }))
  const t = await testServer({ provider: new OneCall(), config })
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const page = await FakePage.open(t.server.url, browser, conversation, [work])
  page.autoAnswer = false
  const streams = await chatEvents(t, browser, conversation)
  await browser.say(conversation, 'do the work')
  const call = (await page.next((m) => m.type === 'call')) as { id: string }
  const progress = (fields: Record<string, unknown>, clientId = page.clientId) =>
    page.send({ protocol: 1, type: 'progress', clientId, id: call.id, ...fields })
  return { t, browser, conversation, page, streams, call, progress }
}

describe(`the progress extension (${DEPLOYMENT === 'single' ? 'one instance' : 'three instances'})`, () => {
  it.each(['websocket', 'http'] as const)(
    'accepts an offer of progress, and only the extensions it knows (%s)',
    async (transport) => {
      const t = await testServer()
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      const page = await FakePage.open(t.server.url, browser, conversation, [], { transport })
      page.send({ protocol: 1, type: 'extensions', clientId: page.clientId, offer: ['progress', 'not-yet'] })
      const answer = await page.next((m) => (m as { type: string }).type === 'extensions')
      expect(answer).toEqual({
        protocol: 1,
        type: 'extensions',
        clientId: page.clientId,
        accept: ['progress'],
      })
      expect(t.rejections).toEqual([])
    },
  )

  it("passes a running call's progress to the chat under the model's tool-call id, masked, without its data", async () => {
    const { streams, progress, page } = await running()
    progress({ fraction: 0.5, message: `Charging card ${CARD}`, data: { card: CARD } })
    for (const events of streams) await until(() => progressOf(events).length === 1, 'the progress event')
    for (const events of streams) {
      expect(progressOf(events)).toEqual([
        {
          type: 'tool-progress',
          callId: 'tc-1',
          progress: { fraction: 0.5, message: 'Charging card **** 4242' },
        },
      ])
      expect(JSON.stringify(events)).not.toContain(CARD)
    }
    await page.flush()
  })

  it('refuses progress for a call it never made or that another page load holds, and drops it once answered', async () => {
    const { t, streams, progress, page, call, conversation } = await running()
    page.send({ protocol: 1, type: 'progress', clientId: page.clientId, id: 'never-issued', fraction: 0.1 })
    progress({ fraction: 0.2 }, 'another-page-load')
    await page.flush()
    expect(t.rejections.map((r) => [r.type, r.reason])).toEqual([
      ['progress', 'unknown_id'],
      ['progress', 'mismatch'],
    ])
    page.result(call.id, { status: 'ok' })
    await t.server.agent.idle(conversation)
    progress({ fraction: 0.9 })
    await page.flush()
    await sleep(50)
    for (const events of streams) expect(progressOf(events)).toEqual([])
    expect(t.rejections).toHaveLength(2)
  })

  it(`passes at most ${MAX_PROGRESS_PER_SECOND} a second from one page connection, and drops the rest`, async () => {
    const { streams, progress, page } = await running()
    for (let i = 1; i <= 200; i++) progress({ fraction: i / 200 })
    await page.flush()
    for (const events of streams)
      await until(() => progressOf(events).length >= MAX_PROGRESS_PER_SECOND, 'progress')
    await sleep(100)
    for (const events of streams) {
      expect(progressOf(events).length).toBeGreaterThan(0)
      expect(progressOf(events).length).toBeLessThanOrEqual(MAX_PROGRESS_PER_SECOND)
    }
  })

  it("never extends a call's deadline", async () => {
    const { t, browser, conversation, progress } = await running({ callDeadlineMs: 600 })
    const started = Date.now()
    const ticker = setInterval(() => progress({ message: 'still working' }), 100)
    onTestFinished(() => clearInterval(ticker))
    await t.server.agent.idle(conversation)
    clearInterval(ticker)
    // The call timed out at its deadline although the page kept reporting progress.
    expect(Date.now() - started).toBeLessThan(3000)
    const history = (await (await browser.fetch(`/api/conversations/${conversation}`)).json()) as {
      messages: Array<{ role: string; part?: { state: string; summary?: string } }>
    }
    const part = history.messages.find((m) => m.role === 'tool')?.part
    expect(part?.state).toBe('failed')
    expect(part?.summary).toContain('timeout')
  })
})
