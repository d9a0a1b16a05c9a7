import { afterEach, describe, expect, it } from 'vitest'
import { challengesTools, demoState } from '../../../../offline-agent/src/__tests__/demo-tools.ts'
import { FakePage } from '../../__tests__/support/fake-page.ts'
import { Browser, readEvents } from '../../__tests__/support/http-client.ts'
import { openSocket } from '../../__tests__/support/page-links.ts'
import { testServers } from '../../__tests__/support/test-server.ts'
import { manualClock } from '../../shared/clock.ts'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const server = testServers()

describe('sessions: created lazily, expired, bounded', () => {
  it('leaves no rows for drive-by requests (favicon, page load, <img>, refused cross-origin POST)', async () => {
    const t = await server()
    const url = t.server.url
    await fetch(`${url}/favicon.ico`)
    await fetch(`${url}/`)
    await fetch(`${url}/api/conversations/00000000-0000-4000-8000-000000000000`)
    await fetch(`${url}/api/conversations/x/events`)
    const refused = await fetch(`${url}/api/conversations`, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
    })
    expect(refused.status).toBe(403)
    expect(await t.server.store.countSessions()).toBe(0)
    await new Browser(url).createConversation() // the first request that needs one
    expect(await t.server.store.countSessions()).toBe(1)
  })

  it('expires a session unused for the TTL (HTTP 404, WebSocket 4401) and deletes its data', async () => {
    const clock = manualClock()
    const ttl = 3_600_000
    const t = await server({ clock, config: { sessionTtlMs: ttl } })
    const alice = await t.browser()
    const conversation = await alice.createConversation()
    clock.advance(ttl - 1)
    expect((await alice.fetch(`/api/conversations/${conversation}`)).status).toBe(200) // used: slides
    clock.advance(ttl - 1)
    expect((await alice.fetch(`/api/conversations/${conversation}`)).status).toBe(200)
    clock.advance(ttl)
    expect((await alice.fetch(`/api/conversations/${conversation}`)).status).toBe(404)
    expect(await (await openSocket(t.server.url, { cookie: alice.cookie, conversation })).closed).toBe(4401)
    const oldCookie = alice.cookie
    await alice.createConversation() // a new session (and user); the expired one is pruned
    expect(alice.cookie).not.toBe(oldCookie)
    expect(await t.server.store.getConversation(conversation)).toBeUndefined()
    expect(await t.server.store.countSessions()).toBe(1)
  })

  it('keeps at most MAX_SESSIONS, removing the least recently used with its conversations', async () => {
    const clock = manualClock()
    const t = await server({ clock, config: { maxSessions: 3 } })
    const browsers: Browser[] = []
    const conversations: string[] = []
    for (let i = 0; i < 5; i++) {
      clock.advance(120_000)
      const b = new Browser(t.server.url)
      conversations.push(await b.createConversation())
      browsers.push(b)
    }
    expect(await t.server.store.countSessions()).toBe(3)
    expect(await t.server.store.getConversation(conversations[0]!)).toBeUndefined()
    expect(await t.server.store.getConversation(conversations[1]!)).toBeUndefined()
    expect((await browsers[4]!.fetch(`/api/conversations/${conversations[4]}`)).status).toBe(200)
    expect((await browsers[0]!.fetch(`/api/conversations/${conversations[0]}`)).status).toBe(404)
  })
})

describe('every 4xx answer is JSON { error: { code, message } }', () => {
  it('for each refusal of the conversation API', async () => {
    const t = await server()
    const browser = await t.browser()
    const id = await browser.createConversation()
    const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      browser.fetch(`/api/conversations/${id}/messages`, { method: 'POST', headers, body })
    const cases: Array<[Promise<Response>, number, string]> = [
      [browser.fetch('/api/conversations/nope'), 404, 'not_found'],
      [browser.fetch('/api/nope'), 404, 'not_found'],
      [browser.fetch('/toolmark/nope'), 404, 'not_found'],
      [post('{"text":"hi"}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type'],
      [post('not json'), 400, 'invalid_body'],
      [post('{"text":42}'), 400, 'invalid_body'],
      [post('{"text":"  \\n "}'), 400, 'empty_message'],
      [post(JSON.stringify({ text: 'x'.repeat(4001) })), 400, 'message_too_long'],
      [post(JSON.stringify({ text: 'x'.repeat(70_000) })), 413, 'body_too_large'],
      [
        browser.fetch('/api/conversations', { method: 'POST', headers: { origin: 'https://evil.example' } }),
        403,
        'cross_origin',
      ],
    ]
    for (const [pending, status, code] of cases) {
      const response = await pending
      expect(response.status, code).toBe(status)
      expect(response.headers.get('content-type')).toContain('application/json')
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(body).toEqual({ error: { code, message: expect.any(String) } })
      expect(body.error.message.length).toBeGreaterThan(5)
    }
  })

  it('says the limit when a message is too long, and accepts exactly 4000 characters', async () => {
    const t = await server()
    const browser = await t.browser()
    const id = await browser.createConversation()
    const long = await browser.say(id, 'x'.repeat(4001))
    expect(await long.json()).toEqual({
      error: { code: 'message_too_long', message: 'The message is 4001 characters long; the limit is 4000' },
    })
    expect((await browser.say(id, 'y'.repeat(4000))).status).toBe(202)
  })
})

describe('the chat event stream after a reload', () => {
  it("keeps delivering to the reloaded page's stream after the old one's keep-alive ran out", async () => {
    const t = await server({ config: { sseKeepAliveMs: 300 } })
    const browser = await t.browser()
    const id = await browser.createConversation()
    await FakePage.open(t.server.url, browser, id, challengesTools(demoState()))
    const open = async () => {
      const controller = new AbortController()
      const response = await browser.fetch(`/api/conversations/${id}/events`, { signal: controller.signal })
      const reader = readEvents(response.body!)[Symbol.asyncIterator]()
      await reader.next() // the first event (busy) is written after the stream subscribed
      return { controller, reader }
    }
    const before = await open()
    before.controller.abort() // the page reloads; the server notices the closed stream at once
    await new Promise((resolve) => setTimeout(resolve, 50))
    const after = await open() // the reloaded page's stream
    cleanup.push(async () => after.controller.abort())
    await new Promise((resolve) => setTimeout(resolve, 400)) // past the old stream's keep-alive
    await browser.say(id, 'Search for chess')
    const timer = setTimeout(() => after.controller.abort(), 5_000) // fail fast instead of hanging
    const seen: string[] = []
    for (;;) {
      const { value, done } = await after.reader.next()
      if (done) break
      const event = JSON.parse(value.data) as { type: string; message?: { role: string; text: string } }
      if (event.message?.role === 'assistant') {
        seen.push(event.message.text)
        break
      }
    }
    clearTimeout(timer)
    expect(seen).toEqual(['I found 1 challenge: Chess Openings.'])
  })
})
