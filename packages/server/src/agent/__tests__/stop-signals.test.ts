import { describe, expect, it, onTestFinished } from 'vitest'
import { testServer } from '../../__tests__/support/test-server.ts'
import type { Provider, ProviderEvent, ProviderRequest } from '../types.ts'

const TURNS = 16

/** A provider that holds every request until the request's signal aborts, listening as the model SDKs do. */
class HoldingProvider implements Provider {
  readonly name = 'holding'
  readonly signals: AbortSignal[] = []
  #arrived: () => void = () => {}
  /** Resolves once {@link TURNS} requests are in flight. */
  readonly allArrived = new Promise<void>((resolve) => {
    this.#arrived = resolve
  })

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const signal = request.signal
    if (!signal) throw new Error('the agent passed no signal')
    if (this.signals.push(signal) === TURNS) this.#arrived()
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
    yield { type: 'text', delta: 'never read' }
  }
}

describe('stopping model requests in flight', () => {
  it('gives each concurrent request its own signal (no listener pile-up warning) and aborts them all on close', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    onTestFinished(() => void process.off('warning', onWarning))
    const provider = new HoldingProvider()
    const t = await testServer({
      provider,
      config: { maxQueuedTurnsPerUser: TURNS },
    })
    const browser = await t.browser()
    for (let i = 0; i < TURNS; i++) {
      const conversation = await browser.createConversation()
      expect((await browser.say(conversation, `hello ${i}`)).status).toBe(202)
    }
    await provider.allArrived

    expect(new Set(provider.signals).size).toBe(TURNS)
    expect(provider.signals.some((s) => s.aborted)).toBe(false)
    await t.server.close()
    expect(provider.signals.every((s) => s.aborted)).toBe(true)
    // Node reports a pile-up on the next tick after the listener that crossed its limit.
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })
})
