import { describe, expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { Browser } from '../../__tests__/support/http-client.ts'
import { HttpLink, openSocket } from '../../__tests__/support/page-links.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { testServers } from '../../__tests__/support/test-server.ts'
import { createToolmarkServer } from '../../index.ts'
import { AUTHENTICATE_FAILED, type Authenticate } from '../app.ts'

/*
 * The app's own users: `authenticate(request)` maps a request to the app's user id (here the app's
 * own `app_user` cookie stands in for its session). Conversations, chat streams, page connections
 * and sockets are bound to that id, and the demo cookie is neither issued nor read.
 */

const authenticate: Authenticate = (request) =>
  /(?:^|;\s*)app_user=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1]

const server = testServers({ authenticate })

/** A browser signed in to the app as `user`. */
const as = (url: string, user: string): Browser => {
  const browser = new Browser(url)
  browser.cookie = `app_user=${user}`
  return browser
}

describe('authenticate', () => {
  it('binds conversations to the app user: another user gets 404, nobody signed in gets 401', async () => {
    const t = await server()
    const alice = as(t.server.url, 'alice')
    const created = await alice.fetch('/api/conversations', { method: 'POST' })
    expect(created.status).toBe(201)
    expect(created.headers.get('set-cookie')).toBeNull() // no demo session cookie
    const { id } = (await created.json()) as { id: string }
    expect((await t.server.store.getConversation(id))?.userId).toBe('alice')
    expect((await alice.fetch(`/api/conversations/${id}`)).status).toBe(200)

    const bob = as(t.server.url, 'bob')
    for (const response of [
      await bob.fetch(`/api/conversations/${id}`),
      await bob.say(id, 'hello'),
      await bob.fetch(`/api/conversations/${id}/events`),
    ]) {
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'No such conversation' } })
    }
    expect(await t.server.store.listMessages(id)).toEqual([])

    const nobody = new Browser(t.server.url)
    const refused = await nobody.fetch('/api/conversations', { method: 'POST' })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: { code: 'unauthenticated', message: 'No valid session' } })
    expect(await t.server.store.countSessions()).toBe(0)
  })

  it('ignores a demo session cookie: only authenticate names the user', async () => {
    const demo = await testServers()()
    const visitor = await demo.browser() // holds a valid tm_session cookie of the demo server
    const t = await server()
    const withDemoCookie = new Browser(t.server.url)
    withDemoCookie.cookie = visitor.cookie
    expect((await withDemoCookie.fetch('/api/conversations', { method: 'POST' })).status).toBe(401)
  })

  it("binds sockets and bridge streams to the app user: another user's page is refused", async () => {
    const t = await server()
    const alice = as(t.server.url, 'alice')
    const id = await alice.createConversation()

    // WebSocket: the owner connects; another user gets 4403, nobody signed in 4401.
    const own = await openSocket(t.server.url, { cookie: 'app_user=alice', conversation: id })
    expect(own.ws.readyState).toBe(own.ws.OPEN)
    own.ws.close()
    expect(await (await openSocket(t.server.url, { cookie: 'app_user=bob', conversation: id })).closed).toBe(
      4403,
    )
    expect(await (await openSocket(t.server.url, { conversation: id })).closed).toBe(4401)

    // HTTP transport: the same rules (403, 401), and a POST to Alice's stream by Bob is 404.
    expect(await HttpLink.open(t.server.url, { cookie: 'app_user=bob', conversation: id })).toBe(403)
    expect(await HttpLink.open(t.server.url, { conversation: id })).toBe(401)
    const link = await HttpLink.open(t.server.url, { cookie: 'app_user=alice', conversation: id })
    if (typeof link === 'number') throw new Error(`refused: ${link}`)
    const forged = await fetch(`${t.server.url}/toolmark/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-toolmark-stream': link.stream,
        cookie: 'app_user=bob',
      },
      body: '{}',
    })
    expect(forged.status).toBe(404)
    await link.close()
  })

  it("relays the model's call to the app user's own page", async () => {
    const list = fakeTool('notes.list', 'Lists the notes', { readOnly: true }, {}, () => ({
      status: 'ok',
      data: ['n1'],
    }))
    const provider = new ScriptedProvider([
      () => [toolCall('tc1', 'page_call', { tool: list.name, input: {} })],
    ])
    const t = await server({ provider })
    const alice = as(t.server.url, 'alice')
    const id = await alice.createConversation()
    const page = await FakePage.open(t.server.url, alice, id, [list], { transport: 'http' })
    await alice.say(id, 'list my notes')
    await t.server.agent.idle(id)
    expect(page.calls).toEqual([{ tool: 'notes.list', input: {}, rev: 1 }])
    expect(
      (await t.server.store.getCall(page.inbox[0]?.type === 'call' ? page.inbox[0].id : ''))?.userId,
    ).toBe('alice')
    await page.close()
  })

  it('answers 500 internal (JSON) when authenticate throws, on the API and the bridge alike', async () => {
    const t = await server({
      authenticate: () => {
        throw new Error('session backend down')
      },
    })
    const browser = new Browser(t.server.url)
    for (const response of [
      await browser.fetch('/api/conversations', { method: 'POST' }),
      await browser.fetch('/toolmark/events?conversation=c1'),
    ]) {
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ error: { code: 'internal', message: AUTHENTICATE_FAILED } })
    }
    expect(t.logs.filter((line) => line.includes('It threw: Error: session backend down'))).toHaveLength(2)
  })
})

describe('an authenticate that throws', () => {
  // The guide's first draft called a `currentUser` the app had not written yet: a ReferenceError.
  const broken: Authenticate = () => {
    throw new ReferenceError('currentUser is not defined')
  }

  it('answers 500 internal saying what authenticate must return, and logs the same with the cause', async () => {
    const lines: string[] = []
    const toolmark = createToolmarkServer({
      provider: new ScriptedProvider([]),
      authenticate: broken,
      log: (line) => lines.push(line),
    })
    try {
      for (const path of ['/api/conversations', '/toolmark/messages']) {
        const response = await toolmark.fetch(
          new Request(`http://localhost:3000${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          }),
        )
        expect(response.status).toBe(500)
        expect(await response.json()).toEqual({ error: { code: 'internal', message: AUTHENTICATE_FAILED } })
      }
      expect(lines).toHaveLength(2)
      for (const line of lines) {
        expect(line).toContain(AUTHENTICATE_FAILED)
        expect(line).toContain('ReferenceError: currentUser is not defined')
      }
    } finally {
      await toolmark.close()
    }
  })

  it('says what to write: a user id or undefined, or no authenticate for the cookie session', () => {
    expect(AUTHENTICATE_FAILED).toMatch(/must return the signed-in user's id/)
    expect(AUTHENTICATE_FAILED).toMatch(/leave `authenticate` out/)
  })
})
