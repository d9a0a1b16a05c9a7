import { randomUUID } from 'node:crypto'
import { bridge } from '@toolmark/bridge'
import { serverGrants } from '@toolmark/bridge/grants'
import { websocketTransport } from '@toolmark/bridge/websocket'
import { createToolmark, ok } from '@toolmark/core'
import { environment, grantChoices } from '@toolmark/core/adapter'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { type Browser, ScriptedProvider, type TestServer, testServer, toolCall } from './helpers.ts'

/*
 * "Allow for this conversation" for calls of the in-app agent: the page binds its bridge to the conversation its
 * transport is bound to (`bridge({ conversation })`), so a call that arrives over the bridge carries it, the card
 * offers the choice, and the grant it leaves counts in that conversation only.
 */

beforeAll(() => environment.setIsServer(false))
afterAll(() => environment.setIsServer(undefined))

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const withCookie = (cookie: string) =>
  class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie } })
    }
  }

/** One page load of the browser's user, bound to `conversation`, with its grants kept on the server. */
async function page(t: TestServer, browser: Browser, conversation: string, bindConversation = true) {
  const grants = serverGrants({
    api: `${t.server.url}/api`,
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as object), cookie: browser.cookie } }),
  })
  await grants.load()
  const tm = createToolmark({ dev: false, grants })
  const runs: string[] = []
  tm.register({
    name: 'notes.add',
    description: 'Add a note.',
    hints: { consequential: true },
    grantable: true,
    run: () => {
      runs.push(conversation)
      return ok('added')
    },
  })
  const clientId = randomUUID()
  const bound = new Promise<void>((resolve) => {
    const off = t.server.relay.on('rebound', (e) => {
      if (e.to === clientId) {
        off()
        resolve()
      }
    })
  })
  const transport = websocketTransport({
    url: `${t.server.url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`,
    WebSocket: withCookie(browser.cookie),
    terminalCloseCodes: [4401, 4403],
  })
  const dispose = tm.use(bridge({ transport, clientId, ...(bindConversation ? { conversation } : {}) }))
  cleanup.push(() => dispose?.())
  await bound
  return { tm, grants, runs }
}

const addNote = () => [toolCall(`tc-${randomUUID()}`, 'page_call', { tool: 'notes.add', input: {} })]
const say = (text: string) => () => [{ type: 'text' as const, delta: text }]

/** Posts a message and waits for the turn; the status of the page's answer to the turn's page_call. */
async function turn(t: TestServer, browser: Browser, conversation: string, provider: ScriptedProvider) {
  const before = provider.requests.length
  await browser.say(conversation, 'add a note')
  await t.server.agent.idle(conversation)
  const tool = provider.requests
    .slice(before)
    .flatMap((r) => r.messages)
    .findLast((m) => m.role === 'tool')
  return (JSON.parse((tool as { content: string }).content) as { status: string }).status
}

function confirmed(t: TestServer): Promise<void> {
  return new Promise((resolve) => {
    const off = t.server.relay.on('confirmed', () => {
      off()
      resolve()
    })
  })
}

describe('"allow for this conversation" for calls over the bridge', () => {
  it('is not asked again in the same conversation, and is asked again in another one', async () => {
    const provider = new ScriptedProvider([])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const one = await browser.createConversation()
    const other = await browser.createConversation()
    const first = await page(t, browser, one)

    provider.script.push(addNote, say('Waiting for you.'))
    expect(await turn(t, browser, one, provider)).toBe('needs_confirmation')
    const [card] = first.tm.pendingConfirmations()
    expect(card?.conversation).toBe(one)
    expect(grantChoices(card!).map((c) => c.key)).toEqual(['once', 'conversation', 'days'])

    const done = confirmed(t)
    provider.script.push(say('Added.'))
    await first.tm.confirmPending(card!.confirmId, { approved: true, remember: 'conversation' })
    await done
    await t.server.agent.idle(one)
    await vi.waitFor(() =>
      expect(first.grants.list()).toMatchObject([{ tool: 'notes.add', conversation: one }]),
    )
    expect(first.runs).toEqual([one])

    // The same conversation: the tool runs at once, no card.
    provider.script.push(addNote, say('Added again.'))
    expect(await turn(t, browser, one, provider)).toBe('ok')
    expect(first.runs).toEqual([one, one])
    expect(first.tm.pendingConfirmations()).toEqual([])

    // Another conversation (another page load of the same user, with the same grants): asked again.
    const second = await page(t, browser, other)
    expect(second.grants.list()).toHaveLength(1)
    provider.script.push(addNote, say('Waiting for you.'))
    expect(await turn(t, browser, other, provider)).toBe('needs_confirmation')
    expect(second.runs).toEqual([])
    expect(second.tm.pendingConfirmations()).toHaveLength(1)
    expect(t.rejections).toEqual([])
  })

  it('a bridge that is not told its conversation offers no such choice', async () => {
    const provider = new ScriptedProvider([addNote, say('Waiting for you.')])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const one = await browser.createConversation()
    const unbound = await page(t, browser, one, false)
    expect(await turn(t, browser, one, provider)).toBe('needs_confirmation')
    const [card] = unbound.tm.pendingConfirmations()
    expect(card?.conversation).toBeUndefined()
    expect(grantChoices(card!).map((c) => c.key)).toEqual(['once', 'days'])
  })
})
