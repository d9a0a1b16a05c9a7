import { describe, expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { Browser } from '../../__tests__/support/http-client.ts'
import type { HttpLink } from '../../__tests__/support/page-links.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { DEPLOYMENT, testServers } from '../../__tests__/support/test-server.ts'
import { clusterCoordinator } from '../../coordinate/cluster.ts'
import { bridgeHttp, RETRYABLE_HEADER } from '../../http/bridge-http.ts'
import { openSqliteStore } from '../../sqlite.ts'
import type { Cluster } from '../cluster.ts'
import { Relay } from '../relay.ts'

/*
 * A page that reconnects, reloads or resumes on another instance stays reachable from every instance (no sticky
 * sessions). In the `server` project everything runs on one instance; in `server-shared` A, B and C are three
 * instances sharing PostgreSQL and Redis, each reached directly (the balancer bypassed).
 */

const readTool = fakeTool('notes.read', 'Read a note', { readOnly: true }, { type: 'object' }, () => ({
  status: 'ok',
  data: 'from the page',
}))

/** Every turn makes one page_call to `tool`, then ends with a short text. */
function callingProvider(tool: string): ScriptedProvider {
  const provider = new ScriptedProvider([])
  let n = 0
  provider.stream = async function* (request) {
    provider.requests.push(
      structuredClone({ system: request.system, messages: request.messages, tools: request.tools }),
    )
    const last = request.messages.at(-1)
    if (last?.role === 'user') yield toolCall(`tc${++n}`, 'page_call', { tool, input: {} })
    else yield { type: 'text' as const, delta: 'done' }
  }
  return provider
}

const server = testServers({ config: { callDeadlineMs: 4000 } })

/** A test server whose turns call `notes.read`, a browser with a conversation, and A, B, C's own URLs. */
async function setup() {
  const provider = callingProvider(readTool.name)
  const t = await server({ provider })
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const urls = t.server.instances
  const [a, b, c] = [0, 1, 2].map((i) => urls[i % urls.length]!) as [string, string, string]
  /** The same browser (cookie), talking to one instance directly. */
  const on = (url: string) => {
    const other = new Browser(url)
    other.cookie = browser.cookie
    other.settled = browser.settled
    other.gone = browser.gone
    return other
  }
  /** The text of the conversation's tool messages, in order. */
  const toolTexts = async () =>
    (await browser.messages(conversation)).filter((m) => m.role === 'tool').map((m) => m.text)
  return { t, provider, browser, conversation, a, b, c, on, toolTexts }
}

describe('a page that reconnects elsewhere stays reachable from every instance', () => {
  it('runs a call from C once on a page load that reconnected from A to B and has sent nothing since', async () => {
    const { t, conversation, a, b, c, on, toolTexts } = await setup()
    const first = await FakePage.open(a, on(a), conversation, [readTool])
    await first.close()
    // The same page load reconnects to B; its bridge does not send the manifest again.
    const again = await FakePage.open(b, on(b), conversation, [readTool], {
      clientId: first.clientId,
      manifest: false,
    })
    await t.settled()
    expect((await on(c).say(conversation, 'read it')).status).toBe(202)
    await t.server.agent.idle(conversation)
    expect(again.calls).toEqual([{ tool: 'notes.read', input: {}, rev: 1 }])
    expect(first.calls).toEqual([])
    expect((await toolTexts()).join('\n')).not.toMatch(/No page|Timed out/)
    // Once it answered there, the page load is claimed by B: the next call goes straight to it.
    expect((await on(c).say(conversation, 'read it again')).status).toBe(202)
    await t.server.agent.idle(conversation)
    expect(again.calls).toHaveLength(2)
    await again.close()
  })

  it("sends a turn's call to the page load the conversation is bound to, even from the instance holding the old tab", async () => {
    const { t, conversation, a, c, on, toolTexts } = await setup()
    const old = await FakePage.open(a, on(a), conversation, [readTool])
    // A full reload in another tab, on C: the conversation is rebound to it; the old tab stays open on A.
    const reloaded = await FakePage.open(c, on(c), conversation, [readTool])
    expect((await t.server.relay.page(conversation))?.clientId).toBe(reloaded.clientId)
    // The turn runs on A, where only the old tab's socket is.
    expect((await on(a).say(conversation, 'read it')).status).toBe(202)
    await t.server.agent.idle(conversation)
    expect(reloaded.calls).toEqual([{ tool: 'notes.read', input: {}, rev: 1 }])
    expect(old.calls).toEqual([])
    expect(old.inbox).toEqual([])
    expect((await toolTexts()).join('\n')).not.toMatch(/No page|Timed out/)
    await Promise.all([old.close(), reloaded.close()])
  })

  it('resumes a page stream on another instance: a call written while the stream was down is delivered there, once', async () => {
    const { t, provider, conversation, a, b, c, on, toolTexts } = await setup()
    const first = await FakePage.open(a, on(a), conversation, [readTool], { transport: 'http' })
    const link = first.link as HttpLink
    // The stream drops; A keeps the page connection for its resume grace.
    await link.close()
    expect((await on(c).say(conversation, 'read it')).status).toBe(202)
    // The call is written while the stream is down: it waits in the page connection's window, on A.
    while (provider.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    await t.settled()
    if (DEPLOYMENT === 'three')
      while (!t.crossings.includes('send to A')) await new Promise((resolve) => setTimeout(resolve, 20))
    // The EventSource reconnects with Last-Event-ID, and lands on B.
    const resumed = await FakePage.open(b, on(b), conversation, [readTool], {
      transport: 'http',
      clientId: first.clientId,
      manifest: false,
      lastEventId: link.lastEventId,
    })
    await t.server.agent.idle(conversation)
    expect(resumed.calls).toEqual([{ tool: 'notes.read', input: {}, rev: 1 }])
    expect((resumed.link as HttpLink).stream).toBe(link.stream) // the same page connection, no new `ready`
    expect((await toolTexts()).join('\n')).not.toMatch(/No page|Timed out/)
    // It is reachable from the other instances through B now.
    expect((await on(c).say(conversation, 'read it again')).status).toBe(202)
    await t.server.agent.idle(conversation)
    expect(resumed.calls).toHaveLength(2)
    expect(first.calls).toEqual([])
    await resumed.close()
  })
})

describe('a POST whose stream cannot be found right now is marked retryable', () => {
  it('answers 503 coordinator_unavailable with the retryable marker while the stream cannot be looked up, and a plain 404 once it is known to be gone', async () => {
    const store = openSqliteStore(':memory:')
    const relay = new Relay({ store, deadlineMs: 1000, log: () => {} })
    let reachable = false
    // Only what a POST for another instance's stream uses of a coordinator.
    const cluster = {
      instance: 'c',
      onMessage: () => {},
      settling: () => false,
      holder: async () => {
        if (!reachable) throw new Error('Redis is unreachable')
        return undefined
      },
    } as unknown as Cluster
    const http = bridgeHttp({
      store,
      relay,
      userOf: async () => 'u1',
      coordinator: clusterCoordinator(cluster, { log: () => {} }),
      log: () => {},
    })
    try {
      const post = () =>
        http.app.request('http://localhost/toolmark/messages', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-toolmark-stream': 's1' },
          body: '{}',
        })
      const refused = await post()
      expect(refused.status).toBe(503)
      expect(refused.headers.get(RETRYABLE_HEADER)).toBe('1')
      expect(refused.headers.get('retry-after')).toBe('1')
      expect(await refused.json()).toEqual({
        error: {
          code: 'coordinator_unavailable',
          message: 'The server instances cannot reach each other right now; try again shortly',
        },
      })
      reachable = true
      const gone = await post()
      expect(gone.status).toBe(404)
      expect(gone.headers.get(RETRYABLE_HEADER)).toBeNull()
    } finally {
      http.close()
      await relay.close()
      store.close()
    }
  })
})
