import { randomUUID } from 'node:crypto'
import { bridge } from '@toolmark/bridge'
import { progressBridge } from '@toolmark/bridge/progress'
import { websocketTransport } from '@toolmark/bridge/websocket'
import {
  createToolmark,
  ok,
  REFUSED_MESSAGES,
  type RunResult,
  type ToolContext,
  type Toolmark,
} from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { EXPIRED_RESULT } from '../agent/loop.ts'
import { challengesRegistry } from './support/challenges-page.ts'
import { type Browser, readEvents } from './support/http-client.ts'
import { ScriptedProvider, toolCall } from './support/scripted-provider.ts'
import { type TestServer, testServer } from './support/test-server.ts'

/*
 * The server against the real page side: a core registry with the bridge and websocketTransport
 * (over the `ws` package, carrying the session cookie like a browser would). No browser needed.
 */

// Node has no document, so the registry would be inert (no document, no registry): act as the browser page here.
beforeAll(() => environment.setIsServer(false))
afterAll(() => environment.setIsServer(undefined))

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A `ws` WebSocket that sends the browser's session cookie on the handshake. */
const withCookie = (cookie: string) =>
  class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie } })
    }
  }

/** Attaches a page (registry + bridge + websocketTransport) and resolves once the server bound it. */
async function attach(
  t: TestServer,
  browser: Browser,
  conversation: string,
  tm: Toolmark,
  clientId: string,
  make: typeof bridge = bridge,
) {
  const bound = new Promise<void>((resolve) => {
    const off = t.server.relay.on('rebound', (e) => {
      if (e.to === clientId) {
        off()
        resolve()
      }
    })
  })
  const url = `${t.server.url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`
  const transport = websocketTransport({
    url,
    WebSocket: withCookie(browser.cookie),
    terminalCloseCodes: [4401, 4403],
  })
  const dispose = tm.use(make({ transport, clientId }))
  cleanup.push(() => dispose?.())
  await bound
  return dispose
}

async function setup() {
  const t = await testServer()
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const answer = async (text: string) => {
    await browser.say(conversation, text)
    await t.server.agent.idle(conversation)
    return (await browser.messages(conversation)).filter((m) => m.role === 'assistant').at(-1)?.text
  }
  return { t, browser, conversation, answer }
}

const confirmedOnce = (t: TestServer) =>
  new Promise<void>((resolve) => {
    const off = t.server.relay.on('confirmed', () => {
      off()
      resolve()
    })
  })

describe('with the real page side (core registry, bridge, websocketTransport)', () => {
  it('searches, and creates after approval with a follow-up acknowledgement', async () => {
    const { t, browser, conversation, answer } = await setup()
    const names = ['Chess Openings', 'Marathon Training']
    const tm = challengesRegistry(names)
    await attach(t, browser, conversation, tm, randomUUID())

    expect(await answer('Search for chess')).toBe('I found 1 challenge: Chess Openings.')
    expect(await answer('create a challenge called Robotics')).toBe(
      'A confirmation is waiting in the page: Create challenge "Robotics". Approve or reject it there.',
    )
    const [pending] = tm.pendingConfirmations()
    expect(pending).toMatchObject({ tool: 'challenges.create', summary: 'Create challenge "Robotics"' })
    const confirmed = confirmedOnce(t)
    await tm.confirmPending(pending!.confirmId, { approved: true })
    await confirmed
    await t.server.agent.idle(conversation)
    expect(names).toContain('Robotics')
    expect((await browser.messages(conversation)).at(-1)).toMatchObject({
      role: 'assistant',
      text: 'Created "Robotics".',
    })
    expect(t.rejections).toEqual([])
  })

  it("with progressBridge, a slow tool's progress reaches the chat while it runs, then its result", async () => {
    const provider = new ScriptedProvider([
      () => [toolCall('tc-upload', 'page_call', { tool: 'files.upload', input: {} })],
      () => [{ type: 'text', delta: 'Uploaded.' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    let step: (u: Parameters<ToolContext['progress']>[0]) => void = () => {}
    let finish: () => void = () => {}
    const tm = createToolmark({ dev: false })
    tm.register({
      name: 'files.upload',
      title: 'Upload files',
      description: 'Upload the files',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) => {
          step = (u) => ctx.progress(u)
          finish = () => resolve(ok({ files: 3 }))
        }),
    })
    await attach(t, browser, conversation, tm, randomUUID(), progressBridge)
    const events: unknown[] = []
    const stream = new AbortController()
    cleanup.push(() => stream.abort())
    const response = await browser.fetch(`/api/conversations/${conversation}/events`, {
      signal: stream.signal,
    })
    void (async () => {
      for await (const event of readEvents(response.body!)) events.push(JSON.parse(event.data))
    })().catch(() => {})
    await browser.say(conversation, 'upload the files')
    await vi.waitFor(() => expect(events).toContainEqual(expect.objectContaining({ type: 'tool' })))
    step({ fraction: 1 / 3, message: 'Uploaded 1 of 3' })
    await vi.waitFor(() =>
      expect(events).toContainEqual({
        type: 'tool-progress',
        callId: 'tc-upload',
        progress: { fraction: 1 / 3, message: 'Uploaded 1 of 3' },
      }),
    )
    finish()
    await t.server.agent.idle(conversation)
    expect((await browser.messages(conversation)).at(-1)).toMatchObject({
      role: 'assistant',
      text: 'Uploaded.',
    })
    expect(t.rejections).toEqual([])
  })

  it('rebinds to a reloaded page, which shows the pending card again with a new confirmId; approving creates once', async () => {
    const { t, browser, conversation, answer } = await setup()
    const names: string[] = []
    const before = challengesRegistry(names)
    const dispose = await attach(t, browser, conversation, before, randomUUID())
    await answer('create a challenge called Robotics')
    const [pending] = before.pendingConfirmations()
    dispose?.() // the page unloads: its transport closes the socket

    const reloadedId = randomUUID()
    const after = challengesRegistry(names)
    await attach(t, browser, conversation, after, reloadedId)
    // The user's decision outlived the page: the reloaded page asks again, as its own card.
    await vi.waitFor(() => expect(after.pendingConfirmations()).toHaveLength(1))
    const [again] = after.pendingConfirmations()
    expect(again).toMatchObject({ tool: 'challenges.create', summary: 'Create challenge "Robotics"' })
    expect(again!.confirmId).not.toBe(pending!.confirmId)
    expect((await t.server.relay.page(conversation))?.clientId).toBe(reloadedId)
    expect((await t.server.store.getConfirm(pending!.confirmId))?.state).toBe('expired')

    const confirmed = confirmedOnce(t)
    await after.confirmPending(again!.confirmId, { approved: true })
    await confirmed
    await t.server.agent.idle(conversation)
    expect(names).toEqual(['Robotics'])
    // The follow-up names what was done: the card asked again is the same call as the first one.
    expect((await browser.messages(conversation)).at(-1)).toMatchObject({
      role: 'assistant',
      text: 'Created "Robotics".',
    })
    expect(t.rejections).toEqual([])
  })

  it("removes the old tab's card when the user answers the card asked again in a new tab", async () => {
    const { t, browser, conversation, answer } = await setup()
    const names: string[] = []
    const old = challengesRegistry(names)
    await attach(t, browser, conversation, old, randomUUID())
    await answer('create a challenge called Robotics')
    expect(old.pendingConfirmations()).toHaveLength(1)

    // A second tab opens (the first stays open): it is asked the same decision as its own card.
    const tab = challengesRegistry(names)
    await attach(t, browser, conversation, tab, randomUUID())
    await vi.waitFor(() => expect(tab.pendingConfirmations()).toHaveLength(1))
    const [again] = tab.pendingConfirmations()
    const confirmed = confirmedOnce(t)
    await tab.confirmPending(again!.confirmId, { approved: true })
    await confirmed
    await t.server.agent.idle(conversation)

    // The server withdrew the old tab's card with a cancel: it is gone there, and nothing was sent for it.
    await vi.waitFor(() => expect(old.pendingConfirmations()).toEqual([]))
    expect(names).toEqual(['Robotics'])
    expect(t.rejections).toEqual([])
  })

  it("records an expired confirmation with core's exact refused message", () => {
    expect(EXPIRED_RESULT).toEqual({
      status: 'refused',
      code: 'confirmation_expired',
      message: REFUSED_MESSAGES.confirmation_expired,
    })
  })
})

describe('sensitive paths published by the real page', () => {
  it("masks a value only the tool's sensitivePaths name, though the model called without describing", async () => {
    const secret = 'correct horse battery staple' // no heuristic would recognise it
    const provider = new ScriptedProvider([
      () => [
        toolCall('tc1', 'page_call', { tool: 'account.unlock', input: { account: { passphrase: secret } } }),
      ],
      () => [{ type: 'text', delta: 'Unlocked.' }],
      () => [{ type: 'text', delta: 'ok' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const received: unknown[] = []
    const tm = createToolmark()
    tm.register({
      name: 'account.unlock',
      description: 'Unlock the account with its passphrase.',
      jsonSchema: {
        type: 'object',
        properties: { account: { type: 'object', properties: { passphrase: { type: 'string' } } } },
      },
      sensitivePaths: ['account.passphrase'],
      hints: { readOnly: true },
      run: (input) => {
        received.push(input)
        return ok({ unlocked: true })
      },
    })
    await attach(t, browser, conversation, tm, randomUUID())
    await browser.say(conversation, `unlock it with ${secret}`)
    await t.server.agent.idle(conversation)
    await browser.say(conversation, 'thanks')
    await t.server.agent.idle(conversation)
    expect(received).toEqual([{ account: { passphrase: secret } }]) // the page ran with the real value
    expect(JSON.stringify(provider.requests[2]!.messages)).not.toContain(secret) // a later prompt
    const stored = JSON.stringify(await t.server.store.listMessages(conversation))
    expect(stored).not.toContain(secret)
    expect(stored).toContain('{"account":{"passphrase":"[redacted]"}}')
    expect(JSON.stringify(await browser.messages(conversation))).toContain('unlock it with [redacted]')
  })
})
