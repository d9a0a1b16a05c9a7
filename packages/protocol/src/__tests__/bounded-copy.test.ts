import { types } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { boundedCopy, jsonStringBytes } from '../bounded-copy.ts'
import { DEFAULT_MAX_MESSAGE_BYTES, MAX_DEPTH } from '../messages.ts'

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) as string, 'utf8')

function copied(value: unknown, limits?: Parameters<typeof boundedCopy>[1]): unknown {
  const result = boundedCopy(value, limits)
  if (!result.ok) throw new Error(`expected ok, got ${result.reason}`)
  return result.value
}

/** The next double above `n`. */
function nextUp(n: number): number {
  if (n === 0) return Number.MIN_VALUE
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, n)
  view.setBigInt64(0, view.getBigInt64(0) + (n > 0 ? 1n : -1n))
  return view.getFloat64(0)
}

function nest(depth: number, leaf: unknown = 1): unknown {
  let value = leaf
  for (let i = 1; i < depth; i++) value = { a: value }
  return depth === 0 ? leaf : { a: value }
}

describe('boundedCopy: copies', () => {
  it('returns a detached deep copy of plain JSON with its exact UTF-8 byte length', () => {
    const value = { a: [1, 'two', null, true, { b: -0.5e-7 }], 'é"\n': 'ü€😀', n: 1.2345678901234567e19 }
    const result = boundedCopy(value)
    expect(result).toEqual({ ok: true, value, bytes: jsonBytes(value) })
    const copy = result.ok ? (result.value as typeof value) : value
    expect(copy).not.toBe(value)
    expect(copy.a).not.toBe(value.a)
    expect(copy.a[4]).not.toBe(value.a[4])
  })

  it('runs each getter exactly once and copies its value as data', () => {
    let reads = 0
    const value = {
      get secret() {
        reads++
        return { n: reads }
      },
    }
    const result = boundedCopy(value)
    expect(reads).toBe(1)
    expect(result).toEqual({ ok: true, value: { secret: { n: 1 } }, bytes: jsonBytes({ secret: { n: 1 } }) })
    const copy = result.ok ? (result.value as object) : {}
    expect(Object.getOwnPropertyDescriptor(copy, 'secret')).toMatchObject({ value: { n: 1 }, writable: true })
  })

  it('reads each proxied property once and returns plain objects, not proxies', () => {
    const gets: string[] = []
    const target = { protocol: 1, list: [1, 2] }
    const proxy = new Proxy(target, {
      get(t, key, receiver) {
        gets.push(String(key))
        return Reflect.get(t, key, receiver)
      },
    })
    const copy = copied(proxy)
    expect(gets.sort()).toEqual(['list', 'protocol'])
    expect(types.isProxy(copy)).toBe(false)
    expect(copy).toEqual(target)
  })

  it('drops prototypes, inherited and non-enumerable properties, symbol keys', () => {
    class Point {
      x = 1
      get len() {
        return 5
      }
    }
    const inherited = Object.create({ inherited: true }) as Record<string | symbol, unknown>
    inherited.own = 1
    inherited[Symbol('s')] = 2
    Object.defineProperty(inherited, 'hidden', { value: 3, enumerable: false })
    const copy = copied({
      point: new Point(),
      inherited,
      date: new Date(0),
      map: new Map([[1, 2]]),
    }) as Record<string, object>
    expect(Object.getPrototypeOf(copy.point)).toBe(Object.prototype)
    expect(copy).toEqual({ point: { x: 1 }, inherited: { own: 1 }, date: {}, map: {} })
    expect(Reflect.ownKeys(copy.inherited as object)).toEqual(['own'])
  })

  it('does not honour toJSON inbound: it is a function, dropped like any other', () => {
    const value = { a: 1, toJSON: () => 'replaced', nested: { toJSON: () => 42, b: 2 } }
    const result = boundedCopy(value)
    expect(result).toEqual({
      ok: true,
      value: { a: 1, nested: { b: 2 } },
      bytes: jsonBytes({ a: 1, nested: { b: 2 } }),
    })
  })

  it('copies an own __proto__ key as plain data without touching any prototype', () => {
    const value = JSON.parse(
      '{"__proto__":{"polluted":true},"input":{"__proto__":[1]},"constructor":{"prototype":{"x":1}}}',
    )
    const result = boundedCopy(value)
    expect(result.ok).toBe(true)
    const copy = (result.ok ? result.value : {}) as Record<string, Record<string, unknown>>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: true })
    expect(Object.getOwnPropertyDescriptor(copy.input, '__proto__')?.value).toEqual([1])
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined()
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
    expect(result.ok && result.bytes).toBe(jsonBytes(value))
  })

  it('follows JSON semantics for values JSON cannot carry', () => {
    const fn = () => 1
    const sym = Symbol('s')
    expect(copied({ u: undefined, f: fn, s: sym, k: 1 })).toEqual({ k: 1 })
    expect(Object.keys(copied({ u: undefined, k: 1 }) as object)).toEqual(['k'])
    expect(copied([undefined, fn, sym, Number.NaN, Number.POSITIVE_INFINITY, -Infinity])).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ])
    expect(copied({ n: Number.NaN })).toEqual({ n: null })
    // biome-ignore lint/suspicious/noSparseArray: a hole is copied as null, like JSON
    const holes = [1, , 3]
    expect(copied(holes)).toEqual([1, null, 3])
    expect(boundedCopy(holes)).toMatchObject({ ok: true, bytes: jsonBytes(holes) })
    for (const root of [undefined, fn, sym])
      expect(boundedCopy(root)).toEqual({ ok: false, reason: 'not_json' })
    expect(boundedCopy(10n)).toEqual({ ok: false, reason: 'not_json' })
    expect(boundedCopy({ a: [{ b: 1n }] })).toEqual({ ok: false, reason: 'not_json' })
    expect(boundedCopy('text')).toEqual({ ok: true, value: 'text', bytes: 6 })
    expect(boundedCopy(null)).toEqual({ ok: true, value: null, bytes: 4 })
  })

  it('returns not_json, never throws, for throwing getters and revoked proxies', () => {
    const throwing = {
      get boom() {
        throw new Error('boom')
      },
    }
    const { proxy, revoke } = Proxy.revocable({ a: 1 }, {})
    revoke()
    const ownKeysTrap = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap')
        },
      },
    )
    for (const value of [throwing, proxy, { nested: [proxy] }, ownKeysTrap]) {
      expect(boundedCopy(value)).toEqual({ ok: false, reason: 'not_json' })
    }
  })
})

describe('boundedCopy: limits', () => {
  it('exports the seed limits', () => {
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(1_048_576)
    expect(MAX_DEPTH).toBe(64)
  })

  it('accepts depth 64 and rejects depth 65 (the root object is depth 1)', () => {
    expect(boundedCopy(nest(64)).ok).toBe(true)
    expect(boundedCopy(nest(65))).toEqual({ ok: false, reason: 'too_deep' })
    // An empty object or array at depth 65 counts too.
    expect(boundedCopy(nest(64, {}))).toEqual({ ok: false, reason: 'too_deep' })
    let arrays: unknown = []
    for (let i = 1; i < 64; i++) arrays = [arrays]
    expect(boundedCopy(arrays).ok).toBe(true)
    expect(boundedCopy([arrays])).toEqual({ ok: false, reason: 'too_deep' })
    expect(boundedCopy(nest(3), { maxDepth: 2 })).toEqual({ ok: false, reason: 'too_deep' })
    expect(boundedCopy('scalar', { maxDepth: 0 }).ok).toBe(true)
  })

  it('rejects cycles without overflowing the stack', () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(boundedCopy(cycle)).toEqual({ ok: false, reason: 'too_deep' })
  })

  it('accepts exactly maxBytes and rejects one byte more', () => {
    const value = { text: 'x'.repeat(1000) }
    const bytes = jsonBytes(value)
    expect(boundedCopy(value, { maxBytes: bytes })).toEqual({ ok: true, value, bytes })
    expect(boundedCopy(value, { maxBytes: bytes - 1 })).toEqual({ ok: false, reason: 'too_large' })
    const big = 'é'.repeat(DEFAULT_MAX_MESSAGE_BYTES / 2 - 1) // 2 bytes each + 2 quotes = exactly 1 MiB
    expect(boundedCopy(big)).toMatchObject({ ok: true, bytes: DEFAULT_MAX_MESSAGE_BYTES })
    expect(boundedCopy(`${big}a`)).toEqual({ ok: false, reason: 'too_large' })
  })

  it('stops early on a shared-reference DAG of 2^40 logical size', () => {
    let reads = 0
    const leaf = {
      get v() {
        reads++
        return 1
      },
    }
    let node: unknown = leaf
    for (let i = 0; i < 40; i++) node = [node, node]
    expect(boundedCopy(node)).toEqual({ ok: false, reason: 'too_large' })
    // Each visit of the leaf adds 7 bytes ({"v":1}): work stops within the byte budget.
    expect(reads).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES / 7)
  })

  it('bounds work even when shared objects hold only properties JSON drops', () => {
    let reads = 0
    const shared: Record<string, unknown> = { k: 1 }
    for (let i = 0; i < 1000; i++) {
      Object.defineProperty(shared, `u${i}`, {
        enumerable: true,
        get() {
          reads++
          return undefined
        },
      })
    }
    let node: unknown = shared
    for (let i = 0; i < 30; i++) node = [node, node]
    expect(boundedCopy(node)).toEqual({ ok: false, reason: 'too_large' })
    expect(reads).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES + 1000)
  })

  it('rejects a huge sparse array without walking it', () => {
    const sparse: unknown[] = []
    sparse.length = 2 ** 32 - 1
    expect(boundedCopy(sparse)).toEqual({ ok: false, reason: 'too_large' })
    expect(boundedCopy({ a: 'x'.repeat(2 * DEFAULT_MAX_MESSAGE_BYTES) })).toEqual({
      ok: false,
      reason: 'too_large',
    })
  })
})

describe('boundedCopy: exact byte counts', () => {
  const samples = [
    '',
    'plain printable ascii, long enough (64+ characters) for the fast path: ~!#$%&()*+,-./:;<=>?@[]^_`{|}',
    `${'x'.repeat(100)}"`, // the fast path must notice the last character
    `${'y'.repeat(100)}\u007f\u0080`,
    '"quoted" and \\backslashed\\ and /slash/',
    '\b\f\n\r\t',
    '\u0000\u0001\u001f\u007f\u0080',
    'é ß ü', // 2 bytes each
    '€ ☃ \u2028 \u2029 \ufeff \uffff', // 3 bytes each (U+2028/9 are not escaped)
    '😀 𝄞', // surrogate pairs: 4 bytes
    '\ud800', // lone high surrogate: escaped \ud800 (6 bytes)
    '\udc00x\ud83d', // lone low, then a trailing lone high
    '\ud83d\ud83d\ude00', // a lone high followed by a pair
    `${'x'.repeat(40)}\u0000${'é'.repeat(40)}\ud800`,
  ]

  it.each(samples.map((s) => [JSON.stringify(s), s]))('%s', (_, text) => {
    expect(jsonStringBytes(text)).toBe(jsonBytes(text))
    expect(boundedCopy({ [text]: text })).toMatchObject({ ok: true, bytes: jsonBytes({ [text]: text }) })
  })

  it('counts numbers as JSON.stringify prints them', () => {
    const numbers = [
      0,
      -0,
      7,
      -7,
      10,
      99,
      100,
      999999999,
      -999999999,
      1e9,
      1e21,
      1.5,
      -2.5e-7,
      2 ** 53,
      Number.MIN_VALUE,
    ]
    for (const n of numbers) expect(boundedCopy(n)).toMatchObject({ ok: true, bytes: jsonBytes(n) })
    expect(boundedCopy(numbers)).toMatchObject({ ok: true, bytes: jsonBytes(numbers) })
  })

  it('counts short decimals exactly, including their neighbouring doubles (property)', () => {
    const decimal = fc
      .tuple(
        fc.integer({ min: -2e15, max: 2e15 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: -2, max: 2 }),
      )
      .map(([m, k, ulps]) => {
        let n = m / 10 ** k
        // Step to a neighbouring double: the fast path must not mistake it for the short decimal.
        for (let i = 0; i < Math.abs(ulps); i++) n = ulps > 0 ? nextUp(n) : -nextUp(-n)
        return n
      })
    fc.assert(
      fc.property(decimal, (n) => {
        expect(boundedCopy(n)).toMatchObject({ ok: true, bytes: String(n).length })
      }),
      { numRuns: 5000 },
    )
  })

  // Strings of arbitrary UTF-16 code units (lone surrogates included) and full code points.
  const utf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) })
  const text = fc.oneof(utf16, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' }))
  const key = fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'toJSON', '0', '10', '-1'))
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.sparseArray(tie('value'), { maxLength: 5 }),
      fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    ),
  }))

  it('matches Buffer.byteLength(JSON.stringify(x)) and JSON.stringify output on random values (property)', () => {
    fc.assert(
      fc.property(value, (x) => {
        const result = boundedCopy(x)
        const expected = JSON.stringify(x)
        if (expected === undefined) {
          expect(result).toEqual({ ok: false, reason: 'not_json' })
          return
        }
        expect(result.ok).toBe(true)
        if (!result.ok) return
        expect(JSON.stringify(result.value)).toBe(expected)
        expect(result.bytes).toBe(Buffer.byteLength(expected, 'utf8'))
        const tight = boundedCopy(x, { maxBytes: result.bytes - 1 })
        expect(tight).toEqual({ ok: false, reason: 'too_large' })
      }),
      { numRuns: 2000 },
    )
  })
})
