import { describe, expect, it } from 'vitest'
import { isToolmarkError } from '../../errors.ts'
import {
  ANY_INDEX,
  arrayIndex,
  coversPath,
  flatten,
  getPath,
  isPlainObject,
  matchesPath,
  parsePath,
  setPath,
} from '../paths.ts'

function invalidPathThrown(fn: () => unknown): boolean {
  try {
    fn()
  } catch (error) {
    return isToolmarkError(error, 'invalid_path')
  }
  return false
}

describe('parsePath', () => {
  it('splits dot paths and wildcards', () => {
    expect(parsePath('')).toEqual([])
    expect(parsePath('a')).toEqual(['a'])
    expect(parsePath('cards.0.cvc')).toEqual(['cards', '0', 'cvc'])
    expect(parsePath('cards[].cvc')).toEqual(['cards', ANY_INDEX, 'cvc'])
    expect(parsePath('cards.[].cvc')).toEqual(['cards', ANY_INDEX, 'cvc'])
    expect(parsePath('grid[][]')).toEqual(['grid', ANY_INDEX, ANY_INDEX])
    expect(parsePath('[].id')).toEqual([ANY_INDEX, 'id'])
    expect(parsePath('orders[].cards[].cvc')).toEqual(['orders', ANY_INDEX, 'cards', ANY_INDEX, 'cvc'])
    expect(parsePath('first name')).toEqual(['first name'])
  })

  it('returns frozen, cached segments', () => {
    const a = parsePath('x.y.z')
    expect(Object.isFrozen(a)).toBe(true)
    expect(parsePath('x.y.z')).toBe(a)
  })

  it.each([
    ['a..b'],
    ['.a'],
    ['a.'],
    ['.'],
    ['a[0]'],
    ['a]'],
    ['a[b]c'],
    ['__proto__'],
    ['a.__proto__.b'],
    ['constructor.prototype'],
    ['a.prototype'],
    ['__proto__[]'],
  ])('rejects %j with invalid_path', (path) => {
    expect(invalidPathThrown(() => parsePath(path))).toBe(true)
  })

  it('rejects non-strings with invalid_path', () => {
    for (const bad of [undefined, null, 1, ['a'], {}]) {
      expect(invalidPathThrown(() => parsePath(bad as unknown as string))).toBe(true)
    }
  })
})

describe('arrayIndex / isPlainObject', () => {
  it('accepts canonical decimal indices only', () => {
    expect(arrayIndex('0')).toBe(0)
    expect(arrayIndex('42')).toBe(42)
    expect(arrayIndex('01')).toBe(-1)
    expect(arrayIndex('-1')).toBe(-1)
    expect(arrayIndex('1e3')).toBe(-1)
    expect(arrayIndex('')).toBe(-1)
    expect(arrayIndex('4294967295')).toBe(-1)
  })

  it('recognises plain objects', () => {
    expect(isPlainObject({})).toBe(true)
    expect(isPlainObject(Object.create(null))).toBe(true)
    expect(isPlainObject([])).toBe(false)
    expect(isPlainObject(new Date())).toBe(false)
    expect(isPlainObject(null)).toBe(false)
  })
})

describe('getPath', () => {
  const data = { cards: [{ cvc: '123', n: null }], 'first name': 'Ann', nested: { '0': 'zero' } }

  it('reads objects and array indices', () => {
    expect(getPath(data, 'cards.0.cvc')).toBe('123')
    expect(getPath(data, 'cards.0.n')).toBe(null)
    expect(getPath(data, 'first name')).toBe('Ann')
    expect(getPath(data, 'nested.0')).toBe('zero')
    expect(getPath(data, '')).toBe(data)
  })

  it('answers undefined for missing steps and non-containers', () => {
    expect(getPath(data, 'cards.1.cvc')).toBeUndefined()
    expect(getPath(data, 'cards.length')).toBeUndefined()
    expect(getPath(data, 'cards.0.cvc.length')).toBeUndefined()
    expect(getPath(data, 'missing.deep')).toBeUndefined()
    expect(getPath({ d: new Date(0) }, 'd.getTime')).toBeUndefined()
    expect(getPath({}, 'toString')).toBeUndefined()
  })

  it('rejects unsafe paths and wildcards', () => {
    expect(invalidPathThrown(() => getPath(data, '__proto__'))).toBe(true)
    expect(invalidPathThrown(() => getPath(data, 'cards.constructor'))).toBe(true)
    expect(invalidPathThrown(() => getPath(data, 'cards[].cvc'))).toBe(true)
  })
})

describe('setPath', () => {
  it('returns a structurally shared copy and never mutates', () => {
    const input = { cards: [{ cvc: '1', n: 'a' }, { cvc: '2' }], other: { x: 1 } }
    const snapshot = structuredClone(input)
    const out = setPath(input, 'cards.0.cvc', '9')
    expect(out).toEqual({ cards: [{ cvc: '9', n: 'a' }, { cvc: '2' }], other: { x: 1 } })
    expect(input).toEqual(snapshot)
    expect(out.other).toBe(input.other)
    expect(out.cards[1]).toBe(input.cards[1])
    expect(out.cards).not.toBe(input.cards)
  })

  it('creates missing containers (arrays for index segments) and appends at length', () => {
    expect(setPath(undefined, 'a.b', 1)).toEqual({ a: { b: 1 } })
    expect(setPath({}, 'list.0.name', 'x')).toEqual({ list: [{ name: 'x' }] })
    expect(setPath({ a: null }, 'a.b', 1)).toEqual({ a: { b: 1 } })
    expect(setPath([1], '1', 2)).toEqual([1, 2])
    expect(setPath({ a: 1 }, '', 'root')).toBe('root')
  })

  it('keeps null prototypes and never touches Object.prototype', () => {
    const bare = Object.create(null) as Record<string, unknown>
    bare.a = 1
    const out = setPath(bare, 'b', 2) as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(null)
    expect(out).toEqual(Object.assign(Object.create(null), { a: 1, b: 2 }))
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>
    const copy = setPath(parsed, 'a', 2) as Record<string, unknown>
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('rejects unsafe paths and impossible steps with invalid_path', () => {
    expect(invalidPathThrown(() => setPath({}, '__proto__.polluted', true))).toBe(true)
    expect(invalidPathThrown(() => setPath({}, 'constructor.prototype.x', true))).toBe(true)
    expect(invalidPathThrown(() => setPath({ a: 'str' }, 'a.b', 1))).toBe(true)
    expect(invalidPathThrown(() => setPath({ a: [] }, 'a.x', 1))).toBe(true)
    expect(invalidPathThrown(() => setPath({ a: [] }, 'a.2', 1))).toBe(true)
    expect(invalidPathThrown(() => setPath({ d: new Date() }, 'd.x', 1))).toBe(true)
    expect(invalidPathThrown(() => setPath({}, 'a[].b', 1))).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('flatten', () => {
  it('lists leaves with dot paths and numeric indices', () => {
    const date = new Date(0)
    expect(
      flatten({ cards: [{ cvc: '1', tags: [] }, 'x'], meta: {}, when: date, n: null, u: undefined }),
    ).toEqual([
      { path: 'cards.0.cvc', value: '1' },
      { path: 'cards.0.tags', value: [] },
      { path: 'cards.1', value: 'x' },
      { path: 'meta', value: {} },
      { path: 'when', value: date },
      { path: 'n', value: null },
      { path: 'u', value: undefined },
    ])
  })

  it('treats a non-container root as one leaf at the root path', () => {
    expect(flatten(5)).toEqual([{ path: '', value: 5 }])
    expect(flatten([])).toEqual([{ path: '', value: [] }])
  })

  it('round-trips through getPath', () => {
    const data = { a: [{ b: [1, { c: 'd' }] }], e: 'f' }
    for (const { path, value } of flatten(data)) expect(getPath(data, path)).toBe(value)
  })

  it('rejects keys a path cannot address, and cycles', () => {
    expect(invalidPathThrown(() => flatten(JSON.parse('{"__proto__":{"x":1}}')))).toBe(true)
    expect(invalidPathThrown(() => flatten({ 'a.b': 1 }))).toBe(true)
    expect(invalidPathThrown(() => flatten({ '': 1 }))).toBe(true)
    expect(invalidPathThrown(() => flatten({ 'tags[]': 1 }))).toBe(true)
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    expect(invalidPathThrown(() => flatten(cyclic))).toBe(true)
    const shared = { x: 1 }
    expect(flatten({ a: shared, b: shared })).toEqual([
      { path: 'a.x', value: 1 },
      { path: 'b.x', value: 1 },
    ])
  })
})

describe('matchesPath / coversPath', () => {
  it('matches [] against any index, only', () => {
    expect(matchesPath('cards[].cvc', 'cards.0.cvc')).toBe(true)
    expect(matchesPath('cards.[].cvc', 'cards.17.cvc')).toBe(true)
    expect(matchesPath('cards[].cvc', 'cards.x.cvc')).toBe(false)
    expect(matchesPath('cards[].cvc', 'cards.01.cvc')).toBe(false)
    expect(matchesPath('cards[].cvc', 'cards.0')).toBe(false)
    expect(matchesPath('cards[].cvc', 'cards.0.cvc.x')).toBe(false)
    expect(matchesPath('cards.0.cvc', 'cards.0.cvc')).toBe(true)
    expect(matchesPath('orders[].cards[].cvc', 'orders.2.cards.5.cvc')).toBe(true)
    expect(matchesPath('', '')).toBe(true)
  })

  it('covers the path itself and everything below it', () => {
    expect(coversPath('cards[].cvc', 'cards.0.cvc')).toBe(true)
    expect(coversPath('card', 'card.number')).toBe(true)
    expect(coversPath('cards[]', 'cards.3.cvc')).toBe(true)
    expect(coversPath('cards[].cvc', 'cards.0')).toBe(false)
    expect(coversPath('', 'anything.at.all')).toBe(true)
  })

  it('throws invalid_path for malformed input and a wildcard in the concrete path', () => {
    expect(invalidPathThrown(() => matchesPath('a..b', 'a'))).toBe(true)
    expect(invalidPathThrown(() => matchesPath('a[]', 'a[]'))).toBe(true)
    expect(invalidPathThrown(() => coversPath('a', '__proto__'))).toBe(true)
  })
})
