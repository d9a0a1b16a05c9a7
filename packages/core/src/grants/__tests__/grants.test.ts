import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'
import type {
  Grant,
  GrantStore,
  ToolDefinition,
  ToolmarkErrorEvent,
  ToolmarkEvents,
  ToolmarkOptions,
} from '../../types.ts'
import { createGrantStore, toolFingerprint } from '../index.ts'

const runs: string[] = []

/** A consequential, grantable tool that records its runs; `extra` overrides any field. */
const grantable = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `Save a ${name}`,
  input: z.object({ title: z.string() }),
  hints: { consequential: true },
  grantable: true,
  run: (input) => {
    runs.push(name)
    return ok(input)
  },
  ...extra,
})

function setup(options: ToolmarkOptions = {}) {
  const grants = createGrantStore()
  const tm = createToolmark({ dev: true, live: true, grants, ...options })
  const results: ToolmarkEvents['result'][] = []
  tm.events.on('result', (e) => results.push(e))
  const errors: ToolmarkErrorEvent[] = []
  // Development warnings about callers without a confirm handler are not what these tests look at.
  tm.events.on('error', (e) => e.code !== 'missing_confirm_handler' && errors.push(e))
  return { tm, grants, results, errors }
}

/** Calls `name` as `inapp` and approves its card with `remember`. */
async function approveRemembering(
  tm: ReturnType<typeof setup>['tm'],
  name: string,
  remember: unknown,
  options: { conversation?: string } = {},
) {
  const asked = await tm.call(name, { title: 'a' }, { caller: 'inapp', ...options })
  if (asked.status !== 'needs_confirmation') throw new Error(`expected a card, got ${asked.status}`)
  return tm.confirmPending(asked.confirmId, { approved: true, remember } as never)
}

afterEach(() => {
  runs.length = 0
  vi.useRealTimers()
})

describe('grants', () => {
  it('a remembered approval stops the asking for that tool only, and says which grant allowed the call', async () => {
    const { tm, grants, results } = setup()
    tm.register(grantable('note'))
    tm.register(grantable('task'))
    const first = await tm.call('note', { title: 'a' }, { caller: 'inapp' })
    expect(first.status).toBe('needs_confirmation')
    expect(tm.pendingConfirmations()[0]).toMatchObject({ tool: 'note', grantable: true })
    if (first.status !== 'needs_confirmation') return
    expect(await tm.confirmPending(first.confirmId, { approved: true, remember: { days: 30 } })).toEqual(
      ok({ title: 'a' }),
    )
    const [grant] = grants.list()
    expect(grant).toMatchObject({ tool: 'note', caller: 'inapp' })
    expect(grant!.expiresAt! - grant!.createdAt).toBeGreaterThan(30 * 86_400_000 - 1000)
    expect(grant!.expiresAt! - grant!.createdAt).toBeLessThanOrEqual(30 * 86_400_000)

    expect(await tm.call('note', { title: 'b' }, { caller: 'inapp' })).toEqual(ok({ title: 'b' }))
    expect(tm.pendingConfirmations()).toEqual([])
    expect(results.at(-1)).toMatchObject({ tool: 'note', caller: 'inapp', grant: grant!.id })
    expect(runs).toEqual(['note', 'note'])

    // Another grantable tool still asks.
    expect((await tm.call('task', { title: 'c' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('approving once (the default) remembers nothing', async () => {
    const { tm, grants } = setup()
    tm.register(grantable('note'))
    await approveRemembering(tm, 'note', undefined)
    await approveRemembering(tm, 'note', 'once')
    expect(grants.list()).toEqual([])
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('a changed tool asks again; the same tool registered again does not', async () => {
    const { tm } = setup()
    let handle = tm.register(grantable('note'))
    await approveRemembering(tm, 'note', { days: 1 })
    handle.dispose()
    handle = tm.register(grantable('note'))
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('ok')

    const changes: Partial<ToolDefinition>[] = [
      { description: 'Save a note and email it to everyone' },
      { input: z.object({ title: z.string(), recipients: z.array(z.string()).optional() }) },
      { hints: { consequential: true, untrustedContent: true } },
    ]
    for (const change of changes) {
      handle.dispose()
      handle = tm.register(grantable('note', change))
      expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
    }
  })

  it('revoking a grant restores the asking', async () => {
    const { tm, grants } = setup()
    tm.register(grantable('note'))
    await approveRemembering(tm, 'note', { days: 7 })
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('ok')
    await grants.revoke(grants.list()[0]!.id)
    expect(grants.list()).toEqual([])
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('is bound to the caller kind: an inapp grant does not let an mcp call through', async () => {
    const queue = createConfirmQueue()
    const { tm } = setup({ confirm: queue.handler })
    tm.register(grantable('note'))
    await approveRemembering(tm, 'note', { days: 7 })
    const call = tm.call('note', { title: 'a' }, { caller: 'mcp' })
    await vi.waitFor(() => expect(queue.getPending()).toHaveLength(1))
    expect(queue.getPending()[0]).toMatchObject({ caller: 'mcp', grantable: true })
    queue.reject(queue.getPending()[0]!.confirmId)
    expect((await call).status).toBe('cancelled')
  })

  it('inline confirmations remember too; a conversation grant matches only that conversation', async () => {
    const queue = createConfirmQueue()
    const { tm, grants } = setup({ confirm: queue.handler, confirmMode: { inapp: 'inline' } })
    tm.register(grantable('note'))
    const call = tm.call('note', { title: 'a' }, { caller: 'inapp', conversation: 'c1' })
    await vi.waitFor(() => expect(queue.getPending()).toHaveLength(1))
    expect(queue.getPending()[0]).toMatchObject({ grantable: true, conversation: 'c1' })
    queue.approve(queue.getPending()[0]!.confirmId, undefined, 'conversation')
    expect(await call).toEqual(ok({ title: 'a' }))
    expect(grants.list()[0]).toMatchObject({ tool: 'note', caller: 'inapp', conversation: 'c1' })
    expect(grants.list()[0]!.expiresAt).toBeUndefined()

    expect((await tm.call('note', { title: 'b' }, { caller: 'inapp', conversation: 'c1' })).status).toBe('ok')
    const other = tm.call('note', { title: 'c' }, { caller: 'inapp', conversation: 'c2' })
    await vi.waitFor(() => expect(queue.getPending()).toHaveLength(1))
    queue.reject(queue.getPending()[0]!.confirmId)
    expect((await other).status).toBe('cancelled')
  })

  it('a grant for N days ends after N days', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { tm } = setup()
    tm.register(grantable('note'))
    await approveRemembering(tm, 'note', { days: 2 })
    vi.setSystemTime(Date.now() + 2 * 86_400_000 - 1000)
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('ok')
    vi.setSystemTime(Date.now() + 2000)
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('a destructive tool cannot be grantable', () => {
    const { tm } = setup()
    expect(() => tm.register(grantable('wipe', { hints: { destructive: true } }))).toThrow(
      expect.objectContaining({ code: 'invalid_grant' }),
    )
    const prod = setup({ dev: false })
    const handle = prod.tm.register(grantable('wipe', { hints: { destructive: true } }))
    expect(prod.errors).toEqual([expect.objectContaining({ code: 'invalid_grant', tool: 'wipe' })])
    expect(prod.tm.manifest().tools.map((t) => t.name)).not.toContain(handle.name)
  })

  it('a tool that is not grantable offers no choice and keeps asking; remember is ignored with a warning', async () => {
    const { tm, grants, errors } = setup()
    tm.register(grantable('note', { grantable: false }))
    const asked = await tm.call('note', { title: 'a' }, { caller: 'inapp' })
    expect(tm.pendingConfirmations()[0]!.grantable).toBeUndefined()
    if (asked.status !== 'needs_confirmation') throw new Error('expected a card')
    expect((await tm.confirmPending(asked.confirmId, { approved: true, remember: { days: 3 } })).status).toBe(
      'ok',
    )
    expect(grants.list()).toEqual([])
    expect(errors).toEqual([expect.objectContaining({ code: 'invalid_grant', level: 'warning' })])
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('an invalid remember counts once', async () => {
    const { tm, grants, errors } = setup()
    tm.register(grantable('note'))
    for (const remember of [{ days: 0 }, { days: 1.5 }, { days: 366 }, 'always', 'conversation']) {
      expect((await approveRemembering(tm, 'note', remember)).status).toBe('ok')
    }
    expect(grants.list()).toEqual([])
    expect(errors.map((e) => e.code)).toEqual(Array(5).fill('invalid_grant'))
  })

  it('without a grant store cards offer no choice', async () => {
    const tm = createToolmark({ dev: true, live: true })
    tm.register(grantable('note'))
    await tm.call('note', { title: 'a' }, { caller: 'inapp' })
    expect(tm.pendingConfirmations()[0]!.grantable).toBeUndefined()
  })

  it('checks what the store answers: a grant for another fingerprint or caller never skips the card', async () => {
    const forged = (over: Record<string, unknown>): GrantStore => ({
      ...createGrantStore(),
      find: (q) => ({ id: 'g', createdAt: 0, expiresAt: Date.now() + 1e6, ...q, ...over }) as Grant,
    })
    for (const over of [{ fingerprint: 'other' }, { caller: 'mcp' as const }, { expiresAt: undefined }]) {
      const tm = createToolmark({ dev: true, live: true, grants: forged(over) })
      tm.register(grantable('note'))
      expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
    }
  })

  it('a store that throws asks, and says so', async () => {
    const store: GrantStore = {
      ...createGrantStore(),
      find: () => {
        throw new Error('down')
      },
    }
    const { tm, errors } = setup({ grants: store })
    tm.register(grantable('note'))
    expect((await tm.call('note', { title: 'a' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
    expect(errors).toEqual([expect.objectContaining({ code: 'grant_store_failed' })])
  })
})

describe('createGrantStore', () => {
  const storage = () => {
    const data = new Map<string, string>()
    return {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      data,
    }
  }

  it('persists grants in storage and drops what is malformed or expired', () => {
    const s = storage()
    const a = createGrantStore({ storage: s })
    const g = a.add({
      tool: 'note',
      fingerprint: 'f',
      caller: 'inapp',
      expiresAt: Date.now() + 1000,
    }) as Grant
    const b = createGrantStore({ storage: s })
    expect(b.list()).toEqual([g])
    s.data.set(
      'toolmark:grants',
      JSON.stringify([g, { ...g, id: 'x', caller: 'human' }, { ...g, id: 'y', expiresAt: 1 }, 'junk']),
    )
    expect(createGrantStore({ storage: s }).list()).toEqual([g])
    s.data.set('toolmark:grants', '{not json')
    expect(createGrantStore({ storage: s }).list()).toEqual([])
  })

  it('notifies subscribers and keeps one grant per tool, caller and conversation', () => {
    const store = createGrantStore()
    const seen: number[] = []
    const off = store.subscribe(() => seen.push(store.list().length))
    store.add({ tool: 'note', fingerprint: 'f1', caller: 'inapp', expiresAt: Date.now() + 1000 })
    store.add({ tool: 'note', fingerprint: 'f2', caller: 'inapp', expiresAt: Date.now() + 1000 })
    store.add({ tool: 'note', fingerprint: 'f2', caller: 'mcp', expiresAt: Date.now() + 1000 })
    expect(store.list().map((g) => [g.fingerprint, g.caller])).toEqual([
      ['f2', 'mcp'],
      ['f2', 'inapp'],
    ])
    store.revoke('unknown')
    off()
    store.revoke(store.list()[0]!.id)
    expect(seen).toEqual([1, 1, 2])
  })
})

describe('toolFingerprint', () => {
  const base = {
    name: 'note',
    description: 'd',
    inputSchema: { type: 'object', properties: { a: {}, b: {} } },
  }
  it('does not depend on key order and changes with each part', () => {
    const fp = toolFingerprint(base)
    expect(fp).toMatch(/^[0-9a-f]{16}$/)
    expect(
      toolFingerprint({
        inputSchema: { properties: { b: {}, a: {} }, type: 'object' },
        description: 'd',
        name: 'note',
      }),
    ).toBe(fp)
    expect(toolFingerprint({ ...base, name: 'note2' })).not.toBe(fp)
    expect(toolFingerprint({ ...base, description: 'e' })).not.toBe(fp)
    expect(toolFingerprint({ ...base, inputSchema: { type: 'object' } })).not.toBe(fp)
    expect(toolFingerprint({ ...base, hints: { readOnly: true } })).not.toBe(fp)
  })
})
