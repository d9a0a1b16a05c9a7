import { serverGrants } from '@toolmark/bridge/grants'
import { createToolmark, ok, type Toolmark } from '@toolmark/core'
import { describe, expect, it, vi } from 'vitest'
import { testServers } from '../../__tests__/support/test-server.ts'
import type { Authenticate } from '../../index.ts'

/*
 * `@toolmark/bridge/grants` against the real server: an approval remembered in one page is kept for the
 * signed-in user, so another page load (another browser) of the same user runs the tool without asking,
 * a changed tool asks again, and revoking restores the asking.
 */

const authenticate: Authenticate = (request) =>
  /(?:^|;\s*)app_user=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1]
const server = testServers({ authenticate })

/** A page load of `user`: its grant store talks to the server with the user's cookie. */
async function page(url: string, user: string, description = 'Add a note to the challenge.') {
  const grants = serverGrants({
    api: `${url}/api`,
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as object), cookie: `app_user=${user}` } }),
  })
  await grants.load()
  const tm = createToolmark({ live: true, grants })
  tm.register({
    name: 'notes.add',
    description,
    hints: { consequential: true },
    grantable: true,
    run: () => ok('added'),
  })
  return { tm, grants }
}

const call = (tm: Toolmark) => tm.call('notes.add', {}, { caller: 'inapp' })

describe('serverGrants', () => {
  it("keeps the user's grant on the server: another page load of that user stops asking, others still ask", async () => {
    const t = await server()
    const first = await page(t.server.url, 'alice')
    const asked = await call(first.tm)
    if (asked.status !== 'needs_confirmation') throw new Error('expected a card')
    expect(first.tm.pendingConfirmations()[0]?.grantable).toBe(true)
    expect(
      await first.tm.confirmPending(asked.confirmId, { approved: true, remember: { days: 30 } }),
    ).toEqual(ok('added'))
    await vi.waitFor(() => expect(first.grants.list()).toHaveLength(1))

    const again = await page(t.server.url, 'alice')
    expect(again.grants.list()).toEqual(first.grants.list())
    expect(await call(again.tm)).toEqual(ok('added'))

    const bob = await page(t.server.url, 'bob')
    expect((await call(bob.tm)).status).toBe('needs_confirmation')

    const changed = await page(t.server.url, 'alice', 'Add a note and email it to the team.')
    expect((await call(changed.tm)).status).toBe('needs_confirmation')

    await again.grants.revoke(again.grants.list()[0]!.id)
    expect((await call(again.tm)).status).toBe('needs_confirmation')
    const after = await page(t.server.url, 'alice')
    expect(after.grants.list()).toEqual([])
    expect((await call(after.tm)).status).toBe('needs_confirmation')
  })

  it('rejects when the server refuses, and a grant it could not keep never matches', async () => {
    const t = await server()
    const nobody = serverGrants({ api: `${t.server.url}/api` })
    await expect(nobody.load()).rejects.toThrow('Could not load the grants (HTTP 401): No valid session')
    await expect(
      nobody.add({
        tool: 'notes.add',
        fingerprint: '0123456789abcdef',
        caller: 'inapp',
        expiresAt: Date.now() + 1000,
      }),
    ).rejects.toThrow('HTTP 401')
    expect(nobody.list()).toEqual([])
  })
})
