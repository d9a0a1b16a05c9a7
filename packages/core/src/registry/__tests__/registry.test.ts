import * as v from 'valibot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { prodToolmark, searchTool, tick } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { ToolmarkError } from '../../errors.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { llmName } from '../../tool/names.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'

const noop = () => ok()
const tool = (name: string, extra: object = {}) => ({
  name,
  description: `Tool ${name}`,
  hints: { readOnly: true },
  run: noop,
  ...extra,
})

afterEach(() => environment.setIsServer(undefined))

describe('names', () => {
  it.each(['a', 'signup.fill', 'A-Z_0.9', 'x'.repeat(128)])('accepts %s', (name) => {
    const tm = createTestToolmark()
    expect(tm.register(tool(name)).name).toBe(name)
  })

  it.each(['', 'has space', 'ü', 'a..b', '.a', 'a.', 'x'.repeat(129), 'a/b'])(
    'rejects %j with invalid_name',
    (name) => {
      const tm = createTestToolmark()
      expect(() => tm.register(tool(name))).toThrowError(expect.objectContaining({ code: 'invalid_name' }))
    },
  )

  it('rejects a full name longer than 128 characters built from a scope path', () => {
    const tm = createTestToolmark()
    const scope = tm.scope('s'.repeat(100))
    expect(() => scope.register(tool('t'.repeat(30)))).toThrowError(
      expect.objectContaining({ code: 'invalid_name' }),
    )
  })

  it('maps dots to __ and shortens long names with FNV-1a', () => {
    expect(llmName('signup.fill')).toBe('signup__fill')
    const long = `${'a'.repeat(40)}.${'b'.repeat(40)}`
    const short = llmName(long)
    expect(short).toHaveLength(64)
    expect(short).toBe(`${long.replaceAll('.', '__').slice(0, 55)}_${short.slice(56)}`)
    expect(short.slice(56)).toMatch(/^[0-9a-f]{8}$/)
    // FNV-1a 32-bit of "a" is e40c292c (reference value).
    expect(llmName(`${'x'.repeat(64)}.`.slice(0, 64) + 'y').length).toBeLessThanOrEqual(64)
  })

  it('hashes the UTF-8 bytes of the full dotted name (known vector)', async () => {
    const { fnv1a32 } = await import('../../tool/names.ts')
    expect(fnv1a32('a')).toBe('e40c292c')
    expect(fnv1a32('foobar')).toBe('bf9cf968')
    expect(fnv1a32('')).toBe('811c9dc5')
  })
})

describe('collisions', () => {
  it('throws duplicate_name in development', () => {
    const tm = createTestToolmark()
    tm.register(tool('a.b'))
    expect(() => tm.register(tool('a.b'))).toThrowError(ToolmarkError)
    expect(() => tm.register(tool('a.b'))).toThrowError(expect.objectContaining({ code: 'duplicate_name' }))
  })

  it('rejects an llmName collision (a.b vs a__b)', () => {
    const tm = createTestToolmark()
    tm.register(tool('a.b'))
    expect(() => tm.register(tool('a__b'))).toThrowError(expect.objectContaining({ code: 'duplicate_name' }))
  })

  it('in production rejects with an error event and keeps the first registration', async () => {
    const { tm, errors } = prodToolmark()
    tm.register(tool('x', { run: () => ok(1) }))
    const second = tm.register(tool('x', { run: () => ok(2) }))
    expect(errors.map((e) => e.code)).toEqual(['duplicate_name'])
    second.dispose()
    expect(await tm.call('x', {}, { caller: 'test' })).toEqual({ status: 'ok', data: 1 })
  })

  it('lets the name be reused after dispose', () => {
    const tm = createTestToolmark()
    tm.register(tool('x')).dispose()
    expect(() => tm.register(tool('x'))).not.toThrow()
  })
})

describe('revisions and manifest', () => {
  it('bumps rev on every registration change and sorts by name', () => {
    const tm = createTestToolmark()
    const r0 = tm.rev
    const b = tm.register(tool('b'))
    tm.register(tool('a', { title: 'A tool' }))
    expect(tm.rev).toBe(r0 + 2)
    const m = tm.manifest()
    expect(m.rev).toBe(tm.rev)
    expect(m.tools.map((t) => t.name)).toEqual(['a', 'b'])
    expect(m.tools[0]).toEqual({
      name: 'a',
      llmName: 'a',
      title: 'A tool',
      description: 'Tool a',
      hints: { readOnly: true },
    })
    b.dispose()
    expect(tm.rev).toBe(r0 + 3)
    b.dispose()
    expect(tm.rev).toBe(r0 + 3)
  })

  it('serves the manifest from a per-rev cache', () => {
    const tm = createTestToolmark()
    tm.register(tool('a'))
    expect(tm.manifest()).toBe(tm.manifest())
    const before = tm.manifest()
    tm.register(tool('b'))
    expect(tm.manifest()).not.toBe(before)
  })

  it('describe gives inputSchema (zod via Standard JSON Schema) and outputSchema', () => {
    const tm = createTestToolmark()
    tm.register({ ...searchTool, output: z.object({ query: z.string() }) })
    const d = tm.describe('search')
    expect(d?.inputSchema).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    })
    expect(d?.inputSchema).not.toHaveProperty('$schema')
    expect(d?.outputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } } })
    expect(tm.describe('search')).toBe(d)
    expect(tm.describe('nope')).toBeUndefined()
  })

  it('uses the jsonSchema override, and validates against it without input', async () => {
    const tm = createTestToolmark()
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] }
    tm.register({
      name: 'j',
      description: 'd',
      hints: { readOnly: true },
      jsonSchema: schema,
      run: (x) => ok(x),
    })
    expect(tm.describe('j')?.inputSchema).toEqual(schema)
    expect(await tm.call('j', { n: 0 }, { caller: 'test' })).toMatchObject({ status: 'invalid' })
    expect(await tm.call('j', { n: 2 }, { caller: 'test' })).toEqual({ status: 'ok', data: { n: 2 } })
  })

  it('valibot without a converter: schema_conversion_failed (dev throws, prod registers with {})', () => {
    const input = v.object({ q: v.string() })
    const dev = createTestToolmark()
    expect(() =>
      dev.register({ name: 'v', description: 'd', hints: { readOnly: true }, input, run: noop }),
    ).toThrowError(expect.objectContaining({ code: 'schema_conversion_failed' }))
    const { tm, errors } = prodToolmark()
    tm.register({ name: 'v', description: 'd', hints: { readOnly: true }, input, run: noop })
    expect(errors.map((e) => e.code)).toEqual(['schema_conversion_failed'])
    expect(tm.describe('v')?.inputSchema).toEqual({})
  })

  it('valibot with a jsonSchema override validates with valibot', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'v',
      description: 'd',
      hints: { readOnly: true },
      input: v.object({ q: v.pipe(v.string(), v.minLength(2)) }),
      jsonSchema: { type: 'object' },
      run: ({ q }) => ok(q.toUpperCase()),
    })
    expect(await tm.call('v', { q: 'ab' }, { caller: 'test' })).toEqual({ status: 'ok', data: 'AB' })
    const bad = await tm.call('v', { q: 'a' }, { caller: 'test' })
    expect(bad).toMatchObject({ status: 'invalid', issues: [{ path: 'q' }] })
  })

  it("refuses stale for a tool gone since the caller's rev, unknown_tool otherwise", async () => {
    const tm = createTestToolmark()
    const h = tm.register(tool('gone'))
    const seen = tm.rev
    h.dispose()
    expect(await tm.call('gone', {}, { caller: 'test', rev: seen })).toEqual({
      status: 'refused',
      code: 'stale',
      message: expect.any(String),
      rev: tm.rev,
    })
    expect(await tm.call('gone', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool', rev: tm.rev })
    expect(await tm.call('never', {}, { caller: 'test', rev: seen })).toMatchObject({
      code: 'unknown_tool',
      rev: tm.rev,
    })
    // A rev newer than the current one is treated like the current one.
    expect(await tm.call('gone', {}, { caller: 'test', rev: tm.rev + 5 })).toMatchObject({
      code: 'unknown_tool',
    })
  })
})

describe('subscribe', () => {
  it('publishes one debounced notification carrying rev for a burst', async () => {
    const tm = createTestToolmark()
    const seen: number[] = []
    tm.subscribe((rev) => seen.push(rev))
    const handles = Array.from({ length: 1000 }, (_, i) => tm.register(tool(`t${i}`)))
    for (const h of handles) h.dispose()
    await tick()
    expect(seen).toEqual([tm.rev])
    expect(tm.manifest().tools).toEqual([])
  })

  it('emits change events and unsubscribes', async () => {
    const tm = createTestToolmark()
    const changes: number[] = []
    const off = tm.events.on('change', (e) => changes.push(e.rev))
    const l = vi.fn()
    const unsub = tm.subscribe(l)
    tm.register(tool('a'))
    await tick()
    unsub()
    off()
    tm.register(tool('b'))
    await tick()
    expect(l).toHaveBeenCalledTimes(1)
    expect(changes).toHaveLength(1)
  })
})

describe('removal', () => {
  it('removes through the registration signal', () => {
    const tm = createTestToolmark()
    const ac = new AbortController()
    tm.register(tool('s'), { signal: ac.signal })
    expect(tm.info('s')).toBeDefined()
    ac.abort()
    expect(tm.info('s')).toBeUndefined()
  })

  it('does not register with an already aborted signal', () => {
    const tm = createTestToolmark()
    tm.register(tool('s'), { signal: AbortSignal.abort() })
    expect(tm.manifest().tools).toEqual([])
  })
})

describe('scopes', () => {
  it('prefixes names, nests, and cascades disposal', () => {
    const tm = createTestToolmark()
    const page = tm.scope('page')
    const form = page.scope('form')
    form.register(tool('fill'))
    page.register(tool('open'))
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['page.form.fill', 'page.open'])
    page.dispose()
    expect(form.disposed).toBe(true)
    expect(tm.manifest().tools).toEqual([])
  })

  it('transparent scopes add no segment', () => {
    const tm = createTestToolmark()
    const page = tm.scope('page')
    page.scope('component', { transparent: true }).register(tool('x'))
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['page.x'])
  })

  it('when hides tools and is re-evaluated on notifications', async () => {
    const tm = createTestToolmark()
    let open = false
    const s = tm.scope('modal', { when: () => open })
    s.register(tool('close'))
    expect(tm.manifest().tools).toEqual([])
    expect(await tm.call('modal.close', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool' })
    const revs: number[] = []
    tm.subscribe((r) => revs.push(r))
    open = true
    s.setWhen(() => open)
    await tick()
    expect(revs).toHaveLength(1)
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['modal.close'])
    s.setWhen(false)
    await tick()
    expect(tm.manifest().tools).toEqual([])
  })

  it('registration into a disposed scope is scope_disposed; a foreign scope is invalid_scope', () => {
    const tm = createTestToolmark()
    const s = tm.scope('s')
    s.dispose()
    expect(() => s.register(tool('x'))).toThrowError(expect.objectContaining({ code: 'scope_disposed' }))
    const other = createTestToolmark().scope('o')
    expect(() => tm.register(tool('x'), { scope: other })).toThrowError(
      expect.objectContaining({ code: 'invalid_scope' }),
    )
  })
})

describe('policy', () => {
  it('hides and refuses tools whose hint class a caller may not use', async () => {
    const tm = createTestToolmark({ policy: { tour: ['readOnly'] } })
    tm.register(tool('r'))
    tm.register({ name: 'w', description: 'd', hints: { consequential: true }, run: noop })
    expect(tm.manifest({ caller: 'tour' }).tools.map((t) => t.name)).toEqual(['r'])
    expect(await tm.call('w', {}, { caller: 'tour' })).toMatchObject({
      status: 'refused',
      code: 'not_allowed',
    })
    expect(await tm.call('w', {}, { caller: 'human' })).toEqual({ status: 'ok' })
  })

  it('invalid_policy for an unknown hint class or a policy.human entry', () => {
    expect(() => createTestToolmark({ policy: { inapp: ['readonly' as never] } })).toThrowError(
      expect.objectContaining({ code: 'invalid_policy' }),
    )
    expect(() => createTestToolmark({ policy: { human: ['readOnly'] } as never })).toThrowError(
      expect.objectContaining({ code: 'invalid_policy' }),
    )
  })

  it('invalid_policy in production is an error event on the next microtask', async () => {
    const { tm, errors } = prodToolmark({ policy: { inapp: ['nope' as never] } })
    expect(tm).toBeDefined()
    await tick()
    expect(errors.map((e) => e.code)).toEqual(['invalid_policy'])
  })

  it('unknown callers are refused', async () => {
    const tm = createTestToolmark()
    tm.register(tool('a'))
    expect(await tm.call('a', {}, { caller: 'root' as never })).toMatchObject({ code: 'not_allowed' })
  })
})

describe('development vs production', () => {
  it('tool_budget_exceeded once per revision, development only', async () => {
    const tm = createTestToolmark({ budget: 2 })
    const codes: string[] = []
    tm.events.on('error', (e) => codes.push(e.code))
    for (const n of ['a', 'b', 'c']) tm.register(tool(n))
    await tick()
    await tick()
    expect(codes.filter((c) => c === 'tool_budget_exceeded')).toHaveLength(1)
    const { tm: prod, errors } = prodToolmark({ budget: 2 })
    for (const n of ['a', 'b', 'c']) prod.register(tool(n))
    await tick()
    expect(errors).toEqual([])
  })

  it('warns in development about unannotated tools', () => {
    const tm = createTestToolmark()
    const codes: string[] = []
    tm.events.on('error', (e) => codes.push(`${e.level}:${e.code}`))
    tm.register({ name: 'u', description: 'd', run: noop })
    expect(codes).toContain('warning:unannotated_tool')
  })
})

describe('SSR: without document the registry is inert', () => {
  it('registration and consumers are inert without document', () => {
    environment.setIsServer(true)
    const tm = createToolmark({ dev: true })
    const h = tm.register(tool('a'))
    expect(h.name).toBe('a')
    expect(() => h.dispose()).not.toThrow()
    const consumer = vi.fn()
    tm.use(consumer)()
    expect(consumer).not.toHaveBeenCalled()
    expect(tm.manifest().tools).toEqual([])
  })

  it('is active when the switch says browser', () => {
    environment.setIsServer(false)
    const tm = createToolmark()
    tm.register(tool('a'))
    expect(tm.manifest().tools).toHaveLength(1)
  })
})

describe('use', () => {
  it('ref-counts the same consumer (StrictMode double attach)', () => {
    const tm = createTestToolmark()
    const cleanup = vi.fn()
    const consumer = vi.fn(() => cleanup)
    const d1 = tm.use(consumer)
    const d2 = tm.use(consumer)
    expect(consumer).toHaveBeenCalledTimes(1)
    d1()
    d1()
    expect(cleanup).not.toHaveBeenCalled()
    d2()
    expect(cleanup).toHaveBeenCalledTimes(1)
  })
})

describe('info, state, anchor', () => {
  it('state() redacts sensitive paths; info() reports scope and visibility', () => {
    const tm = createTestToolmark()
    tm.scope('settings').register({
      name: 'card',
      description: 'd',
      hints: { consequential: true },
      sensitivePaths: ['card.number'],
      state: () => ({ card: { number: '4242', expiry: '12/30' } }),
      run: noop,
    })
    expect(tm.state('settings.card')).toEqual({ card: { number: '[redacted]', expiry: '12/30' } })
    expect(tm.info('settings.card')).toMatchObject({
      scope: 'settings',
      visible: true,
      needsConfirmation: true,
    })
    expect(tm.anchor('settings.card')).toBeNull()
  })

  it('anchor resolves function targets', () => {
    const tm = createTestToolmark()
    const el = {} as Element
    tm.register(tool('a', { anchors: { tool: () => el, params: { q: () => null } } }))
    expect(tm.anchor('a')).toBe(el)
    expect(tm.anchor('a', 'q')).toBeNull()
  })
})
