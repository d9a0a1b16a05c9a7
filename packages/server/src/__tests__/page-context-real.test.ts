import { randomUUID } from 'node:crypto'
import { contextBridge } from '@toolmark/bridge/context'
import { progressBridge } from '@toolmark/bridge/progress'
import { websocketTransport } from '@toolmark/bridge/websocket'
import { createToolmark, ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { PAGE_CONTEXT_NOTE } from '../agent/page-context.ts'
import type { AgentMessage } from '../agent/types.ts'
import { ScriptedProvider, testServer } from './helpers.ts'

/*
 * The context extension end to end: a core registry with `contextBridge` (over `progressBridge`) and
 * websocketTransport (the `ws` package, with the session cookie like a browser) against the server. What the
 * model is handed follows what the page declares, masked at the entry's sensitive paths. No browser needed.
 */

// Node has no document, so the registry would be inert: act as the browser page here.
beforeAll(() => environment.setIsServer(false))
afterAll(() => environment.setIsServer(undefined))

const until = async (check: () => Promise<boolean>, what: string): Promise<void> => {
  const end = Date.now() + 10_000
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The entries of the context message among a request's messages, if any. */
const contextOf = (messages: readonly AgentMessage[]): unknown => {
  const found = messages.find((m) => m.role === 'user' && m.text.startsWith(PAGE_CONTEXT_NOTE))
  return found?.role === 'user' ? JSON.parse(found.text.slice(PAGE_CONTEXT_NOTE.length + 1)) : undefined
}

describe('the context extension with the real page side (core, contextBridge, websocketTransport)', () => {
  it("the model sees the page's masked context with each turn, and its changes", async () => {
    const provider = new ScriptedProvider([])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const tm = createToolmark()
    tm.register({
      name: 'orders.search',
      description: 'Search orders',
      hints: { readOnly: true },
      run: () => ok([]),
    })
    const order = tm.context({
      name: 'orders.current',
      description: 'The order on screen',
      value: { id: 7, customer: { email: 'ada@example.com' } },
      sensitivePaths: ['customer.email'],
    })
    const clientId = randomUUID()
    const transport = websocketTransport({
      url: `${t.server.url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`,
      WebSocket: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { cookie: browser.cookie } })
        }
      },
    })
    const dispose = tm.use(contextBridge({ transport, clientId, base: progressBridge, intervalMs: 20 }))
    onTestFinished(() => dispose?.())
    const stored = (rev: (r: number) => boolean) => async () => {
      const record = await t.server.store.getPageContext!(clientId)
      return record !== undefined && rev(record.rev)
    }
    await until(
      stored(() => true),
      'the first context',
    )
    const first = (await t.server.store.getPageContext!(clientId))!.rev

    await browser.say(conversation, 'which order is this?')
    await t.server.agent.idle(conversation)
    expect(contextOf(provider.requests.at(-1)!.messages)).toEqual([
      {
        name: 'orders.current',
        description: 'The order on screen',
        value: { id: 7, customer: { email: '[redacted]' } },
      },
    ])

    order.set({ id: 8, customer: { email: 'bob@example.com' } })
    await until(
      stored((rev) => rev > first),
      'the changed context',
    )
    await browser.say(conversation, 'and now?')
    await t.server.agent.idle(conversation)
    expect(contextOf(provider.requests.at(-1)!.messages)).toEqual([
      {
        name: 'orders.current',
        description: 'The order on screen',
        value: { id: 8, customer: { email: '[redacted]' } },
      },
    ])
    expect(JSON.stringify(provider.requests)).not.toMatch(/ada@|bob@/)
    expect(t.rejections).toEqual([])
  })
})
