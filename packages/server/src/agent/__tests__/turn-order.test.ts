import { describe, expect, it, onTestFinished } from 'vitest'
import { Browser, readEvents } from '../../__tests__/support/http-client.ts'
import { DEPLOYMENT, testServer } from '../../__tests__/support/test-server.ts'
import type { Provider, ProviderEvent, ProviderRequest } from '../types.ts'

/**
 * A provider whose first turn holds until released; it records what each turn saw and when turns
 * started and ended.
 */
class GatedProvider implements Provider {
  readonly name = 'gated'
  readonly requests: ProviderRequest['messages'][] = []
  readonly log: string[] = []
  #release: () => void = () => {}
  readonly #gate = new Promise<void>((resolve) => {
    this.#release = resolve
  })
  #started: () => void = () => {}
  /** Resolves once the first turn reached the provider. */
  readonly started = new Promise<void>((resolve) => {
    this.#started = resolve
  })
  #second: () => void = () => {}
  /** Resolves once a second turn reached the provider. */
  readonly second = new Promise<void>((resolve) => {
    this.#second = resolve
  })

  release(): void {
    this.#release()
  }

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const n = this.requests.push(structuredClone(request.messages))
    this.log.push(`start ${n}`)
    if (n === 1) {
      this.#started()
      await this.#gate
    } else this.#second()
    this.log.push(`end ${n}`)
    yield { type: 'text', delta: `reply ${n}` }
  }
}

/** The first chat event a stream opened on `base` (with `browser`'s cookie) reports. */
async function firstEvent(base: string, browser: Browser, conversation: string): Promise<unknown> {
  const client = new Browser(base)
  client.cookie = browser.cookie
  const controller = new AbortController()
  onTestFinished(() => controller.abort())
  const response = await client.fetch(`/api/conversations/${conversation}/events`, {
    signal: controller.signal,
  })
  for await (const e of readEvents(response.body!)) {
    controller.abort()
    return JSON.parse(e.data)
  }
  throw new Error('the stream ended without an event')
}

describe(`a conversation's turns (${DEPLOYMENT === 'three' ? 'three instances' : 'one instance'})`, () => {
  it('run one at a time when its messages land on different instances, and every instance reports the turn as busy', async () => {
    const provider = new GatedProvider()
    const t = await testServer({ provider })
    onTestFinished(() => provider.release()) // a failed expectation must not leave the turn holding the close
    const { instances } = t.server
    const on = (i: number) => instances[i % instances.length]!
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const say = async (i: number, text: string) => {
      const client = new Browser(on(i))
      client.cookie = browser.cookie
      expect((await client.say(conversation, text)).status).toBe(202)
    }

    await say(0, 'first')
    await provider.started
    await say(1, 'second')
    // The second turn must not reach the model while the first runs: give it the chance it would take
    // (it starts at once when nothing holds it), then let the first turn finish.
    await Promise.race([provider.second, new Promise((resolve) => setTimeout(resolve, 300))])
    // A chat stream opened on a third instance meanwhile says a turn is running.
    expect(await firstEvent(on(2), browser, conversation)).toEqual({ type: 'busy', busy: true })
    provider.release()
    await t.server.agent.idle(conversation)
    await t.settled()

    expect(provider.log).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    // The second turn saw the first one's answer (stored after the second message, which is stored when posted).
    expect(provider.requests[1]).toEqual([
      { role: 'user', text: 'first' },
      { role: 'user', text: 'second' },
      { role: 'assistant', text: 'reply 1', toolCalls: [] },
    ])
    expect(await firstEvent(on(2), browser, conversation)).toEqual({ type: 'busy', busy: false })
    if (DEPLOYMENT === 'three') {
      // The waiting instance (B) asked the one running the turn (A) to tell it the end, and was told.
      expect(t.crossings).toContain('watch-turn to A')
      expect(t.crossings).toContain('turn-ended to B')
    }
  })
})
