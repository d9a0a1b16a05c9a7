/**
 * Results across a boundary: the six result shapes, `rev` only on `unknown_tool` and `stale`, and JSON
 * semantics when serialized.
 */

import { afterEach, describe, expect, it, vi } from 'vitest'
import { tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok, refused } from '../../tool/result.ts'
import { toJsonSafeResult } from '../../tool/serialize.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('results across a boundary: JSON semantics (documented decisions)', () => {
  it('toJSON is honoured (Date → ISO 8601), undefined properties are dropped, undefined in arrays → null', () => {
    const when = new Date('2026-03-04T05:06:07.089Z')
    expect(
      toJsonSafeResult(ok({ when, gone: undefined, list: [1, undefined, 3], nested: { toJSON: () => 'j' } })),
    ).toEqual({
      status: 'ok',
      data: { when: '2026-03-04T05:06:07.089Z', list: [1, null, 3], nested: 'j' },
    })
    expect(toJsonSafeResult(ok(undefined))).toEqual({ status: 'ok' })
    expect(toJsonSafeResult(ok())).toEqual({ status: 'ok' })
    expect(
      toJsonSafeResult({
        status: 'needs_confirmation',
        confirmId: 'c',
        summary: 's',
        changes: [{ path: 'a', before: undefined, after: 1 }],
      }),
    ).toEqual({
      status: 'needs_confirmation',
      confirmId: 'c',
      summary: 's',
      changes: [{ path: 'a', after: 1 }],
    })
  })

  it.each([
    ['BigInt', { n: 10n }],
    [
      'a cycle',
      (() => {
        const a: Record<string, unknown> = {}
        a.self = a
        return a
      })(),
    ],
    ['NaN', { n: Number.NaN }],
    ['Infinity', { n: Number.POSITIVE_INFINITY }],
    ['a Map', { m: new Map([[1, 2]]) }],
    ['a Set', { s: new Set([1]) }],
    ['a typed array', { b: new Uint8Array(2) }],
    [
      'a throwing toJSON',
      {
        t: {
          toJSON: () => {
            throw new Error('x')
          },
        },
      },
    ],
  ])('%s turns the whole result into error "Result not serializable"', (_what, data) => {
    const failures: unknown[] = []
    expect(toJsonSafeResult(ok(data), (err) => failures.push(err))).toEqual({
      status: 'error',
      message: 'Result not serializable',
    })
    expect(failures).toHaveLength(1)
  })

  it('the copy is detached: mutating the original afterwards does not change it', () => {
    const data = { list: [{ a: 1 }] }
    const safe = toJsonSafeResult(ok(data)) as { data: typeof data }
    data.list[0]!.a = 2
    expect(safe.data.list[0]!.a).toBe(1)
  })

  it('in-process tm.call returns data as the tool returned it (documented: no copy)', async () => {
    const tm = createTestToolmark()
    const data = { when: new Date(0) }
    tm.register(tool('d', { run: () => ok(data) }))
    const r = await tm.call('d', {}, { caller: 'test' })
    expect(r.status === 'ok' && r.data).toBe(data)
  })
})

afterEach(() => environment.setIsServer(undefined))

describe('"serialized with JSON semantics (`toJSON` honoured, `undefined` dropped; BigInt, functions, symbols or cycles → `error "Result not serializable"`)"', () => {
  it('a function or symbol value anywhere in the result makes it "Result not serializable"', () => {
    const notSerializable = { status: 'error', message: 'Result not serializable' }
    expect(toJsonSafeResult(ok({ onClick: () => 1 }))).toEqual(notSerializable)
    expect(toJsonSafeResult(ok({ tag: Symbol('x') }))).toEqual(notSerializable)
    expect(toJsonSafeResult(ok([() => 1]))).toEqual(notSerializable)
    expect(toJsonSafeResult(ok(() => 1))).toEqual(notSerializable)
  })
})

describe('protocol: rev only for unknown_tool / stale; every result is one of the six shapes', () => {
  it('the public refused() helper never attaches rev to other codes', () => {
    expect(refused('not_allowed', 'No', 7)).toEqual({ status: 'refused', code: 'not_allowed', message: 'No' })
    expect(refused('busy', 'Busy', 7)).not.toHaveProperty('rev')
    expect(refused('stale', 'Gone', 7)).toEqual({ status: 'refused', code: 'stale', message: 'Gone', rev: 7 })
  })
})
