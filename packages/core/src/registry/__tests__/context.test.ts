/**
 * Readable context: entries declared like tools (names, scopes, lifetimes), masked JSON values with
 * a size bound, revisions, and consumers told only when what they see changed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { environment } from '../../env.ts'
import { createToolmark, MAX_CONTEXT_CHARS, ToolmarkError } from '../../index.ts'
import type { ConsumerHost, ContextSnapshot, ToolmarkEvents } from '../../types.ts'

afterEach(() => {
  environment.setIsServer(undefined)
})

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))
const live = (options: Parameters<typeof createToolmark>[0] = {}) =>
  createToolmark({ live: true, ...options }) as ConsumerHost

/** The snapshots a consumer watching as `caller` receives. */
function watched(tm: ConsumerHost, caller: 'mcp' | 'inapp' | 'webmcp' = 'mcp'): ContextSnapshot[] {
  const seen: ContextSnapshot[] = []
  tm.watchContext({ caller }, (c) => seen.push(c))
  return seen
}

describe('tm.context', () => {
  it('declares a named, described, masked entry that readContext returns', () => {
    const tm = live()
    const handle = tm.context({
      name: 'record',
      title: 'Current order',
      description: 'The order on screen',
      value: { id: 7, card: { number: '4111', holder: 'Ada' } },
      sensitivePaths: ['card.number'],
    })
    expect(handle.name).toBe('record')
    expect(tm.readContext()).toEqual({
      rev: 1,
      entries: [
        {
          name: 'record',
          title: 'Current order',
          description: 'The order on screen',
          value: { id: 7, card: { number: '[redacted]', holder: 'Ada' } },
          rev: 1,
        },
      ],
    })
  })

  it('set replaces the value; an equal value changes nothing and notifies nobody', async () => {
    const tm = live()
    const seen = watched(tm)
    const handle = tm.context({ name: 'sel', description: 'Selection', value: ['a'] })
    await flush()
    expect(seen.map((s) => s.entries.map((e) => e.value))).toEqual([[], [['a']]])
    handle.set(['a'])
    await flush()
    expect(seen).toHaveLength(2)
    expect(tm.readContext().rev).toBe(1)
    handle.set(['a', 'b'])
    handle.set(['a', 'b', 'c'])
    await flush()
    expect(seen).toHaveLength(3)
    expect(seen[2]?.entries[0]).toMatchObject({ value: ['a', 'b', 'c'], rev: 3 })
  })

  it('a change of a masked field only is no change for consumers', async () => {
    const tm = live()
    const handle = tm.context({
      name: 'user',
      description: 'Signed-in user',
      value: { name: 'Ada', token: 'secret-1' },
      sensitivePaths: ['token'],
    })
    const seen = watched(tm)
    handle.set({ name: 'Ada', token: 'secret-2' })
    await flush()
    expect(seen).toHaveLength(1)
    expect(JSON.stringify(tm.readContext())).not.toContain('secret')
  })

  it('lives in its scope: prefixed names, gone with the scope, hidden while the scope is hidden', async () => {
    const tm = live()
    let shown = true
    const scope = tm.scope('orders', { when: () => shown })
    const handle = scope.context({ name: 'current', description: 'Open order', value: { id: 1 } })
    expect(handle.name).toBe('orders.current')
    const seen = watched(tm)
    shown = false
    scope.setWhen(() => shown)
    await flush()
    expect(tm.readContext().entries).toEqual([])
    shown = true
    scope.setWhen(true)
    await flush()
    scope.dispose()
    await flush()
    expect(seen.map((s) => s.entries.map((e) => e.name))).toEqual([
      ['orders.current'],
      [],
      ['orders.current'],
      [],
    ])
    handle.set({ id: 2 })
    expect(tm.readContext().entries).toEqual([])
  })

  it('dispose and an aborted signal remove the entry; a name is free again afterwards', () => {
    const tm = live()
    const a = tm.context({ name: 'x', description: 'X', value: 1 })
    a.dispose()
    a.dispose()
    const ac = new AbortController()
    tm.context({ name: 'x', description: 'X', value: 2 }, { signal: ac.signal })
    expect(tm.readContext().entries.map((e) => e.value)).toEqual([2])
    ac.abort()
    expect(tm.readContext().entries).toEqual([])
  })

  it('is seen by callers the policy gives some tools, not by one it shuts out', () => {
    const tm = live({ policy: { webmcp: [], mcp: ['readOnly'] } })
    tm.context({ name: 'x', description: 'X', value: 1 })
    expect(tm.readContext({ caller: 'mcp' }).entries).toHaveLength(1)
    expect(tm.readContext({ caller: 'human' }).entries).toHaveLength(1)
    expect(tm.readContext({ caller: 'webmcp' }).entries).toEqual([])
  })

  it('development throws on bad names, duplicates and bad values; production reports and shows null', () => {
    const dev = createToolmark({ live: true, dev: true })
    dev.context({ name: 'x', description: 'X', value: 1 })
    expect(() => dev.context({ name: 'x', description: 'X', value: 1 })).toThrow(ToolmarkError)
    expect(() => dev.context({ name: 'a b', description: 'X', value: 1 })).toThrow(/Invalid context name/)
    expect(() => dev.context({ name: 'y', description: 'Y', value: new Date() })).toThrow(/not JSON/)
    expect(dev.readContext().entries.map((e) => e.name)).toEqual(['x'])

    const tm = live()
    const errors: ToolmarkEvents['error'][] = []
    tm.events.on('error', (e) => errors.push(e))
    const big = tm.context({ name: 'big', description: 'Big', value: 'x'.repeat(MAX_CONTEXT_CHARS) })
    expect(errors.map((e) => e.code)).toEqual(['invalid_context'])
    expect(errors[0]?.message).toContain('larger than 16384')
    expect(tm.readContext().entries[0]?.value).toBeNull()
    big.set('fits')
    expect(tm.readContext().entries[0]?.value).toBe('fits')
    for (const bad of [Number.NaN, undefined, () => 1, { a: undefined }, new Map(), 10n]) big.set(bad)
    expect(errors.map((e) => e.code)).toEqual(Array(7).fill('invalid_context'))
    expect(tm.readContext().entries[0]?.value).toBeNull()
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    big.set(cyclic)
    expect(errors).toHaveLength(8)
  })

  it('a scope of another registry or a disposed scope declares nothing', () => {
    const tm = createToolmark({ live: true, dev: true })
    const other = createToolmark({ live: true }).scope('other')
    expect(() => tm.context({ name: 'x', description: 'X', value: 1 }, { scope: other })).toThrow(
      expect.objectContaining({ code: 'invalid_scope' }),
    )
    const gone = tm.scope('gone')
    gone.dispose()
    expect(() => gone.context({ name: 'x', description: 'X', value: 1 })).toThrow(
      expect.objectContaining({ code: 'scope_disposed' }),
    )
    const prod = live()
    const h = prod.context({ name: 'x', description: 'X', value: 1 }, { scope: other })
    expect(h.name).toBe('x')
    h.set(2)
    expect(prod.readContext().entries).toEqual([])
  })

  it('development: a bad value for a declared entry throws and the entry shows null, never the old value', () => {
    const tm = createToolmark({ live: true, dev: true })
    const h = tm.context({ name: 'x', description: 'X', value: 'old' })
    expect(() => h.set(Symbol('s'))).toThrow(/not JSON/)
    expect(tm.readContext().entries[0]?.value).toBeNull()
  })

  it('is inert without a document unless live', () => {
    environment.setIsServer(true)
    const tm = createToolmark()
    const h = tm.context({ name: 'x', description: 'X', value: 1 })
    h.set(2)
    expect(tm.readContext().entries).toEqual([])
  })

  it('entries do not bump the tool revision', () => {
    const tm = live()
    const listener = vi.fn()
    tm.subscribe(listener)
    tm.context({ name: 'x', description: 'X', value: 1 })
    expect(tm.rev).toBe(0)
  })

  it('a consumer unsubscribes; values handed out are copies', async () => {
    const tm = live()
    const value = { list: [1] }
    const h = tm.context({ name: 'x', description: 'X', value })
    const seen = watched(tm)
    value.list.push(2)
    expect(tm.readContext().entries[0]?.value).toEqual({ list: [1] })
    const listener = vi.fn()
    const off = tm.watchContext({ caller: 'inapp' }, listener)
    off()
    h.set({ list: [3] })
    await flush()
    expect(listener).toHaveBeenCalledTimes(1)
    expect(seen).toHaveLength(2)
  })
})
