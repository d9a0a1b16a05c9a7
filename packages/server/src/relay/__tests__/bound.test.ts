import { describe, expect, it } from 'vitest'
import { bound } from '../inbound.ts'

describe('bound: a page message read within the protocol limits', () => {
  it('reads numbers past a double as null, as JSON.stringify writes them, and leaves the rest alone', () => {
    expect(bound('{"a":1e400,"b":[-1e999,1e99,2],"c":{"d":1E+400},"e":"1e400"}')).toEqual({
      ok: true,
      value: { a: null, b: [null, 1e99, 2], c: { d: null }, e: '1e400' },
    })
    expect(bound(`{"a":1${'0'.repeat(309)}}`)).toEqual({ ok: true, value: { a: null } })
  })

  it('keeps a `__proto__` key as data', () => {
    const read = bound('{"__proto__":{"admin":true},"n":1e400}')
    expect(read.ok && Object.hasOwn(read.value as object, '__proto__')).toBe(true)
    expect(read.ok && Object.getPrototypeOf(read.value)).toBe(Object.prototype)
    expect(JSON.stringify(read.ok && read.value)).toBe('{"__proto__":{"admin":true},"n":null}')
  })

  it('refuses text nested deeper than 64 levels before parsing it, and text that is not JSON', () => {
    expect(bound(`${'['.repeat(64)}${']'.repeat(64)}`)).toMatchObject({ ok: true })
    expect(bound(`${'['.repeat(65)}${']'.repeat(65)}`)).toEqual({ ok: false, detail: 'too_deep' })
    expect(bound('{"a":')).toEqual({ ok: false, detail: 'not JSON' })
  })
})
