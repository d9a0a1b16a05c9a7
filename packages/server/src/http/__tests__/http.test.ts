import { createHmac } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { challengesTools, demoState } from '../../../../offline-agent/src/__tests__/demo-tools.ts'
import { FakePage } from '../../__tests__/support/fake-page.ts'
import { Browser, readEvents } from '../../__tests__/support/http-client.ts'
import { openSocket } from '../../__tests__/support/page-links.ts'
import { testServers } from '../../__tests__/support/test-server.ts'
import { SESSION_COOKIE, sessionIdFromHeader } from '../session.ts'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const server = testServers()

/** A cookie value signed the way the server signs it: `<id>.<base64 HMAC-SHA256>`, URL-encoded. */
const signed = (id: string, secret: string) =>
  encodeURIComponent(`${id}.${createHmac('sha256', secret).update(id).digest('base64')}`)

describe('session cookie', () => {
  it('is signed, HttpOnly, SameSite=Lax, Path=/ with the TTL as Max-Age, and identifies the same user later', async () => {
    const t = await server()
    expect((await fetch(`${t.server.url}/`)).headers.get('set-cookie')).toBeNull() // lazy
    const response = await fetch(`${t.server.url}/api/conversations`, { method: 'POST' })
    const header = response.headers.get('set-cookie')!
    expect(header).toMatch(
      new RegExp(
        `^${SESSION_COOKIE}=[0-9a-f-]{36}\\.(?:[A-Za-z0-9]|%2B|%2F){43}%3D; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax$`,
      ),
    )
    const browser = new Browser(t.server.url)
    browser.cookie = header.split(';')[0]!
    const id = await browser.createConversation()
    expect((await browser.fetch(`/api/conversations/${id}`)).status).toBe(200)
    expect(browser.cookie).toBe(header.split(';')[0]) // no new session was issued
  })

  it('treats a tampered cookie as no session: a new user who cannot read the old conversation', async () => {
    const t = await server()
    const browser = await t.browser()
    const id = await browser.createConversation()
    const [, value] = browser.cookie.split('=') as [string, string]
    const session = value.slice(0, value.lastIndexOf('.'))
    const tampered = new Browser(t.server.url)
    tampered.cookie = `${SESSION_COOKIE}=${signed(session, 'guessed secret')}`
    expect((await tampered.fetch(`/api/conversations/${id}`)).status).toBe(404)
    await tampered.createConversation()
    expect(tampered.cookie).not.toContain(session)
  })

  it('is the HMAC of SESSION_SECRET; a well-formed cookie signed with another secret gets 404 and a 4401 socket', async () => {
    const t = await server({ config: { sessionSecret: 'known secret' } })
    const browser = await t.browser()
    const id = await browser.createConversation()
    const session = decodeURIComponent(browser.cookie.split('=')[1]!).split('.')[0]!
    expect(browser.cookie).toBe(`${SESSION_COOKIE}=${signed(session, 'known secret')}`)
    const forged = `${SESSION_COOKIE}=${signed(session, 'guessed secret')}`
    expect(
      (await fetch(`${t.server.url}/api/conversations/${id}`, { headers: { cookie: forged } })).status,
    ).toBe(404)
    expect(await (await openSocket(t.server.url, { cookie: forged, conversation: id })).closed).toBe(4401)
    const { ws } = await openSocket(t.server.url, { cookie: browser.cookie, conversation: id })
    expect(ws.readyState).toBe(ws.OPEN)
    ws.close()
  })

  it('reads the first tm_session of a Cookie header and rejects missing, malformed and forged values', async () => {
    const good = signed('abc', 's')
    expect(await sessionIdFromHeader(`${SESSION_COOKIE}=${good}`, 's')).toBe('abc')
    expect(await sessionIdFromHeader(`other=1; ${SESSION_COOKIE}=${good}; ${SESSION_COOKIE}=x`, 's')).toBe(
      'abc',
    )
    for (const bad of [
      undefined,
      '',
      `${SESSION_COOKIE}=abc`,
      `${SESSION_COOKIE}=.x`,
      `${SESSION_COOKIE}=${good}x`,
      `${SESSION_COOKIE}=${good.replace('abc', 'abd')}`,
      `${SESSION_COOKIE}=${signed('abc', 'another secret')}`,
      `${SESSION_COOKIE}=${signed('', 's')}`,
      `${SESSION_COOKIE}=${'a'.repeat(600)}`,
      `tm_session_2=${good}`,
    ]) {
      expect(await sessionIdFromHeader(bad, 's')).toBeUndefined()
    }
  })
})

describe('conversation API', () => {
  it('creates, reads and posts to a conversation; other users get 404', async () => {
    const t = await server()
    const alice = await t.browser()
    const response = await alice.fetch('/api/conversations', { method: 'POST' })
    expect(response.status).toBe(201)
    const { id } = (await response.json()) as { id: string }
    expect(await (await alice.fetch(`/api/conversations/${id}`)).json()).toEqual({ id, messages: [] })
    const posted = await alice.say(id, 'hello')
    expect(posted.status).toBe(202)
    const { id: messageId } = (await posted.json()) as { id: string }
    await t.server.agent.idle(id)
    const { messages } = (await (await alice.fetch(`/api/conversations/${id}`)).json()) as {
      messages: Array<{ id: string; role: string; text: string; at: number }>
    }
    expect(messages[0]).toEqual({ id: messageId, role: 'user', text: 'hello', at: expect.any(Number) })
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      text: 'The page offers no tools right now, so I cannot act on it.',
    })

    const bob = await t.browser()
    expect((await bob.fetch(`/api/conversations/${id}`)).status).toBe(404)
    expect((await bob.say(id, 'hi')).status).toBe(404)
    expect((await bob.fetch(`/api/conversations/${id}/events`)).status).toBe(404)
  })

  it('validates message bodies', async () => {
    const t = await server()
    const browser = await t.browser()
    const id = await browser.createConversation()
    const post = (body: string, type = 'application/json') =>
      browser.fetch(`/api/conversations/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      })
    expect((await post('{"text":"hi"}', 'text/plain')).status).toBe(415)
    expect((await post('not json')).status).toBe(400)
    expect((await post('{"text":"   "}')).status).toBe(400)
    expect((await post(JSON.stringify({ text: 'x'.repeat(4001) }))).status).toBe(400)
    expect((await post('{"text":42}')).status).toBe(400)
  })

  it('refuses cross-origin POSTs (CSRF)', async () => {
    const t = await server()
    const browser = await t.browser()
    const response = await browser.fetch('/api/conversations', {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
    })
    expect(response.status).toBe(403)
    const same = await browser.fetch('/api/conversations', {
      method: 'POST',
      headers: { origin: t.server.url },
    })
    expect(same.status).toBe(201)
  })

  it('streams busy and message events over server-sent events', async () => {
    const t = await server()
    const browser = await t.browser()
    const id = await browser.createConversation()
    await FakePage.open(t.server.url, browser, id, challengesTools(demoState()))
    const controller = new AbortController()
    cleanup.push(async () => controller.abort())
    const response = await browser.fetch(`/api/conversations/${id}/events`, { signal: controller.signal })
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const events: unknown[] = []
    let subscribed: () => void = () => {}
    const first = new Promise<void>((resolve) => {
      subscribed = resolve
    })
    const done = (async () => {
      for await (const e of readEvents(response.body!)) {
        const event = JSON.parse(e.data) as { type: string; busy?: boolean }
        events.push(event)
        subscribed()
        if (event.type === 'busy' && event.busy === false && events.length > 1) return
      }
    })()
    await first // the stream's first event (busy: false) is written after it subscribed
    await browser.say(id, 'Search for chess')
    await done
    expect(events.map((e) => (e as { type: string }).type)).toEqual([
      'busy', // the state when the stream opened (false)
      'message', // the user's message
      'busy', // true: the turn is queued
      'message', // page_describe line
      'tool', // the page call's part: running
      'tool', // the page call's part: done
      'message', // page_call line
      'text-delta', // the answer as it streams
      'message', // the answer, whole
      'busy',
    ])
    expect(events.at(-2)).toMatchObject({
      message: { role: 'assistant', text: 'I found 1 challenge: Chess Openings.' },
    })
    // The answer's first words streamed before it (the offline agent yields it in chunks).
    const streamed = events.at(-3) as { type: string; delta: string }
    expect(streamed.type).toBe('text-delta')
    expect('I found 1 challenge: Chess Openings.'.startsWith(streamed.delta)).toBe(true)
    expect(events.at(-4)).toMatchObject({
      message: {
        role: 'tool',
        tool: 'challenges.search',
        text: 'page_call challenges.search → ok (1 result)',
      },
    })
  })
})
