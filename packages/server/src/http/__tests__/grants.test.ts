import { describe, expect, it } from 'vitest'
import { Browser } from '../../__tests__/support/http-client.ts'
import { testServers } from '../../__tests__/support/test-server.ts'
import type { Authenticate } from '../../index.ts'

/*
 * The grants routes: a signed-in user lists, stores and revokes their own remembered approvals; the page's
 * registry decides what a grant lets through, the server keeps the list per user and checks what it stores.
 */

const authenticate: Authenticate = (request) =>
  /(?:^|;\s*)app_user=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1]

const NOW = Date.now()
const server = testServers({ authenticate })

const as = (url: string, user: string): Browser => {
  const browser = new Browser(url)
  browser.cookie = `app_user=${user}`
  return browser
}

const post = (b: Browser, body: unknown) =>
  b.fetch('/api/grants', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

const grant = {
  tool: 'notes.add',
  fingerprint: '0123456789abcdef',
  caller: 'inapp',
  expiresAt: NOW + 86_400_000,
}

describe('grants routes', () => {
  it("store, list and revoke the signed-in user's grants; other users see none of them", async () => {
    const t = await server()
    const alice = as(t.server.url, 'alice')
    const bob = as(t.server.url, 'bob')
    const created = await post(alice, { ...grant, title: 'Add note' })
    expect(created.status).toBe(201)
    const { grant: stored } = (await created.json()) as { grant: { id: string } }
    expect(stored).toEqual({
      ...grant,
      title: 'Add note',
      id: expect.any(String),
      createdAt: expect.any(Number),
    })
    expect(await (await alice.fetch('/api/grants')).json()).toEqual({ grants: [stored] })
    expect(await (await bob.fetch('/api/grants')).json()).toEqual({ grants: [] })

    const foreign = await bob.fetch(`/api/grants/${stored.id}`, { method: 'DELETE' })
    expect(foreign.status).toBe(404)
    expect((await alice.fetch(`/api/grants/${stored.id}`, { method: 'DELETE' })).status).toBe(204)
    expect(await (await alice.fetch('/api/grants')).json()).toEqual({ grants: [] })
  })

  it("binds a conversation grant to one of the user's own conversations", async () => {
    const t = await server()
    const alice = as(t.server.url, 'alice')
    const bob = as(t.server.url, 'bob')
    const conversation = await alice.createConversation()
    const { expiresAt: _drop, ...forConversation } = grant
    expect((await post(alice, { ...forConversation, conversation })).status).toBe(201)
    const refused = await post(bob, { ...forConversation, conversation })
    expect(refused.status).toBe(404)
    expect(await refused.json()).toEqual({ error: { code: 'not_found', message: 'No such conversation' } })
  })

  it('refuses what is not a grant with 400 invalid_grant, and nobody signed in with 401', async () => {
    const t = await server()
    const alice = as(t.server.url, 'alice')
    const bad: unknown[] = [
      'not json',
      [],
      { ...grant, tool: 'bad name!' },
      { ...grant, fingerprint: 'XYZ' },
      { ...grant, caller: 'human' },
      { ...grant, expiresAt: NOW - 1 },
      { ...grant, expiresAt: NOW + 366 * 86_400_000 },
      { ...grant, expiresAt: undefined },
      { ...grant, title: 'x'.repeat(201) },
      { ...grant, secret: 'sk-123' },
    ]
    for (const body of bad) {
      const response = await post(alice, body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_grant')
    }
    expect(await (await alice.fetch('/api/grants')).json()).toEqual({ grants: [] })
    const nobody = new Browser(t.server.url)
    expect((await nobody.fetch('/api/grants')).status).toBe(401)
    expect((await post(nobody, grant)).status).toBe(401)
  })
})
