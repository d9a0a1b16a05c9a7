/**
 * Tool names: the allowed characters and segments, full names under scopes, and `llmName` (dots to
 * `__`, long names shortened with a hash).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { codeOf, prodToolmark, tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { ToolmarkError } from '../../errors.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'

/** FNV-1a 32-bit over UTF-8, written independently of the implementation. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('names: ^[A-Za-z0-9_.-]{1,128}$ with no empty segment', () => {
  it('accepts exactly 128 characters and rejects 129 (dev throws invalid_name)', () => {
    const tm = createTestToolmark()
    const n128 = 'N'.repeat(128)
    expect(tm.register(tool(n128)).name).toBe(n128)
    expect(tm.manifest().tools.map((t) => t.name)).toEqual([n128])
    expect(codeOf(() => tm.register(tool('N'.repeat(129))))).toBe('invalid_name')
  })

  it('counts the scope path in the 128 limit (full name 128 ok, 129 rejected)', () => {
    const tm = createTestToolmark()
    const scope = tm.scope('s'.repeat(63))
    expect(scope.register(tool('t'.repeat(64))).name).toBe(`${'s'.repeat(63)}.${'t'.repeat(64)}`)
    expect(scope.register(tool('u'.repeat(64))).name).toHaveLength(128)
    expect(codeOf(() => scope.register(tool('v'.repeat(65))))).toBe('invalid_name')
  })

  it.each(['a', '-', '_', '0', 'A-Z_a-z.0-9', 'a.b.c', 'x-y_z.w'])('accepts %j', (name) => {
    const tm = createTestToolmark()
    expect(tm.register(tool(name)).name).toBe(name)
  })

  it.each(['', '.', '..', 'a..b', '.a', 'a.', 'a b', 'a/b', 'a:b', 'é', 'a\n', 'a\tb', 'a*'])(
    'rejects %j: dev throws ToolmarkError invalid_name, prod emits it and registers nothing',
    (name) => {
      const dev = createTestToolmark()
      expect(() => dev.register(tool(name))).toThrowError(ToolmarkError)
      expect(codeOf(() => dev.register(tool(name)))).toBe('invalid_name')
      const { tm, errors } = prodToolmark()
      const rev = tm.rev
      const handle = tm.register(tool(name))
      expect(errors.map((e) => [e.code, e.level])).toEqual([['invalid_name', 'error']])
      expect(tm.rev).toBe(rev)
      expect(tm.manifest().tools).toEqual([])
      expect(() => handle.dispose()).not.toThrow()
    },
  )

  it('a scope name with an empty segment is invalid_name', () => {
    const tm = createTestToolmark()
    expect(codeOf(() => tm.scope(''))).toBe('invalid_name')
    expect(codeOf(() => tm.scope('a..b'))).toBe('invalid_name')
    expect(codeOf(() => tm.scope('a.'))).toBe('invalid_name')
  })

  it('the full name is the scope path + . + name, nested scopes joined with .', async () => {
    const tm = createTestToolmark()
    const inner = tm.scope('signup').scope('step1')
    const h = inner.register(tool('fill'))
    expect(h.name).toBe('signup.step1.fill')
    expect(tm.manifest().tools[0]).toMatchObject({
      name: 'signup.step1.fill',
      llmName: 'signup__step1__fill',
    })
    const t = tm.scope('page', { transparent: true })
    expect(t.register(tool('open')).name).toBe('open')
    expect((await tm.call('signup.step1.fill', {}, { caller: 'test' })).status).toBe('ok')
  })
})

describe('llmName: . → __, longer than 64 → 55 chars + _ + FNV-1a of the full dotted name', () => {
  it('the independent FNV-1a matches the published test vectors', () => {
    expect(fnv1a('')).toBe('811c9dc5')
    expect(fnv1a('a')).toBe('e40c292c')
    expect(fnv1a('foobar')).toBe('bf9cf968')
  })

  it('keeps a 64-character flat form and hashes a 65-character one over the dotted name', () => {
    const tm = createTestToolmark()
    const n64 = `${'a'.repeat(31)}.${'b'.repeat(31)}` // flat: 31 + 2 + 31 = 64
    const n65 = `${'a'.repeat(31)}.${'b'.repeat(32)}` // flat: 65
    tm.register(tool(n64))
    tm.register(tool(n65))
    const byName = new Map(tm.manifest().tools.map((t) => [t.name, t.llmName]))
    expect(byName.get(n64)).toBe(`${'a'.repeat(31)}__${'b'.repeat(31)}`)
    const flat65 = n65.replaceAll('.', '__')
    expect(byName.get(n65)).toBe(`${flat65.slice(0, 55)}_${fnv1a(n65)}`)
    expect(byName.get(n65)).not.toContain(fnv1a(flat65))
    expect(byName.get(n65)).toHaveLength(64)
  })

  it('hashes a 65-character name without dots and a 128-character name; all match the LLM alphabet', () => {
    const tm = createTestToolmark()
    const n65 = 'x'.repeat(65)
    const n128 = `${'p'.repeat(20)}.${'q'.repeat(20)}.${'r'.repeat(85)}`
    tm.register(tool(n65))
    tm.register(tool(n128))
    tm.register(tool('a-b.c_d'))
    const byName = new Map(tm.manifest().tools.map((t) => [t.name, t.llmName]))
    expect(byName.get(n65)).toBe(`${'x'.repeat(55)}_${fnv1a(n65)}`)
    expect(byName.get(n128)).toBe(`${n128.replaceAll('.', '__').slice(0, 55)}_${fnv1a(n128)}`)
    expect(byName.get('a-b.c_d')).toBe('a-b__c_d')
    for (const name of byName.values()) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
  })

  it('describe and info carry the same llmName', () => {
    const tm = createTestToolmark()
    const name = `${'m'.repeat(63)}.z` // flat form: 66 characters
    tm.register(tool(name))
    const expected = `${'m'.repeat(55)}_${fnv1a(name)}`
    expect(tm.describe(name)?.llmName).toBe(expected)
    expect(tm.info(name)?.llmName).toBe(expected)
  })

  it('an llmName collision is duplicate_name (dev throws, prod keeps the first)', async () => {
    const dev = createTestToolmark()
    dev.register(tool('a.b'))
    expect(codeOf(() => dev.register(tool('a__b')))).toBe('duplicate_name')
    const { tm, errors } = prodToolmark()
    tm.register(tool('a__b', { run: () => ok('first') }))
    tm.register(tool('a.b', { run: () => ok('second') }))
    expect(errors.map((e) => e.code)).toEqual(['duplicate_name'])
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['a__b'])
    expect(await tm.call('a.b', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool' })
  })
})

afterEach(() => environment.setIsServer(undefined))

describe('types.ts ToolHandle.name "Full name" (the full name is the scope path + . + name)', () => {
  it('the inert SSR handle reports the full name too', () => {
    environment.setIsServer(true)
    const tm = createToolmark()
    const h = tm
      .scope('signup')
      .register({ name: 'fill', description: 'd', hints: { readOnly: true }, run: () => ok() })
    expect(h.name).toBe('signup.fill')
  })
})
