import { readFileSync } from 'node:fs'
import { MAX_SENSITIVE_PATH_CHARS, MAX_SENSITIVE_PATHS, SECRETS } from '@toolmark/protocol'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FOLLOW_UP_PROMPT, SYSTEM_PROMPT } from '../../agent/loop.ts'
import {
  declaredPaths,
  isSensitiveKey,
  joinPaths,
  MASKED,
  MAX_MASK_DEPTH,
  maskAtPaths,
  maskText,
  maskValue,
  scrub,
  scrubValue,
  secretForms,
  secretsAt,
  sensitivePathsOf,
} from '../redact.ts'

describe('masking before anything is persisted', () => {
  it('keeps only the last 4 digits of card-number-like sequences', () => {
    expect(maskText('card 4242 4242 4242 4242 now')).toBe('card **** 4242 now')
    expect(maskText('4242-4242-4242-4242')).toBe('**** 4242')
    expect(maskText('378282246310005.')).toBe('**** 0005.')
  })

  it('masks CVC-like codes after their keyword, also with connecting words', () => {
    expect(maskText('cvc 123, CVV: 9876 and security code 321')).toBe(
      'cvc ***, CVV: *** and security code ***',
    )
    expect(maskText('my CVC is 123')).toBe('my CVC is ***')
    expect(maskText('the cvv2 number is 4321.')).toBe('the cvv2 number is ***.')
    expect(maskText('Security code was: 987')).toBe('Security code was: ***')
    expect(maskText('cvc123')).toBe('cvc***')
  })

  it('leaves ordinary numbers, dates, UUIDs and short digit runs alone', () => {
    const text = 'Run 42 km on 12/30, id 12345678-1234-4123-8123-123456789abc, call 555 1234'
    expect(maskText(text)).toBe(text)
  })

  it('masks JSON values deeply and redacts CVC-like keys in any spelling, whatever the value', () => {
    expect(
      maskValue({ card: { number: '4242424242424242', cvc: '123', expiry: '12/30' }, list: ['cvv 999', 7] }),
    ).toEqual({ card: { number: '**** 4242', cvc: '[redacted]', expiry: '12/30' }, list: ['cvv ***', 7] })
    expect(maskValue({ cardCvc: '123', securityCode: 456, cvv2: { value: '789' }, CARD_CVC: '1' })).toEqual({
      cardCvc: '[redacted]',
      securityCode: '[redacted]',
      cvv2: '[redacted]',
      CARD_CVC: '[redacted]',
    })
    expect(maskValue('{"cvc":"123","number":"4242 4242 4242 4242"}')).toBe(
      '{"cvc":"***","number":"**** 4242"}',
    )
  })

  it('masks a card number sent as a JSON number, not other large integers', () => {
    expect(maskValue({ number: 4242424242424242, at: 1_700_000_000_001, n: 42 })).toEqual({
      number: '**** 4242',
      at: 1_700_000_000_001, // not a valid card number (Luhn)
      n: 42,
    })
  })

  it(`replaces what is nested deeper than ${MAX_MASK_DEPTH} levels as a whole`, () => {
    let deep: unknown = { number: '4242 4242 4242 4242', note: 'fine' }
    for (let i = 0; i < 100; i++) deep = { next: deep }
    const text = JSON.stringify(maskValue(deep))
    expect(text).not.toContain('4242 4242')
    expect(text).toContain('"[redacted]"')
    let shallow: unknown = 'ok'
    for (let i = 0; i < MAX_MASK_DEPTH - 1; i++) shallow = [shallow]
    expect(JSON.stringify(maskValue(shallow))).toBe(JSON.stringify(shallow))
  })

  it('masks exactly at declared paths, collects their values, and scrubs them from text', () => {
    const input = {
      card: { number: '4111 1111 1111 1111', cvc: '123' },
      cards: [{ cvc: '456' }, {}],
      name: 'A',
    }
    expect(maskAtPaths(input, ['card.cvc', 'cards[].cvc'])).toEqual({
      card: { number: '4111 1111 1111 1111', cvc: '[redacted]' },
      cards: [{ cvc: '[redacted]' }, {}],
      name: 'A',
    })
    expect(maskAtPaths(input, [''])).toBe('[redacted]')
    expect(input.card.cvc).toBe('123') // never mutated
    expect(secretsAt(input, ['card', 'cards[].cvc', 'name'])).toEqual(['4111 1111 1111 1111', '123', '456'])
    expect(scrub('code 123 for 4111 1111 1111 1111', ['123', '4111 1111 1111 1111'])).toBe(
      'code [redacted] for [redacted]',
    )
  })

  it('a known secret goes with what the heuristics left of it; scrubValue cuts them out of every string', () => {
    expect(secretForms(['4242 4242 4242 4242', 'k9x2z', '12'])).toEqual([
      '4242 4242 4242 4242',
      '**** 4242',
      'k9x2z',
    ])
    const forms = secretForms(['4242 4242 4242 4242'])
    expect(
      scrubValue({ note: 'paid with **** 4242', list: ['4242 4242 4242 4242', 7], n: 4242 }, forms),
    ).toEqual({
      note: 'paid with [redacted]',
      list: ['[redacted]', 7],
      n: 4242,
    })
  })

  it("keeps a `__proto__` key of page data as data, never as the copy's prototype", () => {
    const data = JSON.parse('{"__proto__":{"admin":true,"cvc":"123"},"hits":2}') as object
    for (const copy of [maskValue(data), scrubValue(data, ['zzz'])] as Record<string, unknown>[]) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
      expect(Object.hasOwn(copy, '__proto__')).toBe(true)
      expect(copy.admin).toBeUndefined()
    }
    expect(JSON.stringify(maskValue(data))).toBe('{"__proto__":{"admin":true,"cvc":"[redacted]"},"hits":2}')
    expect(JSON.stringify(scrubValue(data, ['zzz']))).toBe(JSON.stringify(data))
  })

  it('reads writeOnly paths from a JSON Schema', () => {
    const schema = {
      type: 'object',
      properties: {
        card: { type: 'object', properties: { cvc: { type: 'string', writeOnly: true } } },
        cards: { type: 'array', items: { properties: { pin: { writeOnly: true } } } },
        either: { anyOf: [{ type: 'string' }, { writeOnly: true }] },
        name: { type: 'string' },
      },
    }
    expect(sensitivePathsOf(schema)).toEqual(['card.cvc', 'cards[].pin', 'either'])
    expect(sensitivePathsOf({ writeOnly: true })).toEqual([''])
    expect(sensitivePathsOf('nope')).toEqual([])
  })

  /** A schema of `n` write-only properties named `k0`, `k1`, …. */
  const writeOnly = (n: number) => ({
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { writeOnly: true }])),
  })

  it('keeps at most MAX_SENSITIVE_PATHS paths and their characters; past them the whole input is sensitive', () => {
    expect(sensitivePathsOf(writeOnly(MAX_SENSITIVE_PATHS))).toHaveLength(MAX_SENSITIVE_PATHS)
    expect(sensitivePathsOf(writeOnly(MAX_SENSITIVE_PATHS + 1))).toEqual([''])
    const long = 'k'.repeat(MAX_SENSITIVE_PATH_CHARS)
    expect(sensitivePathsOf({ properties: { [long]: { writeOnly: true } } })).toEqual([long])
    expect(sensitivePathsOf({ properties: { [`${long}k`]: { writeOnly: true } } })).toEqual([''])
    // Long names without a write-only value under them count for nothing.
    expect(
      sensitivePathsOf({ properties: { [`${long}k`]: { type: 'string' }, pin: { writeOnly: true } } }),
    ).toEqual(['pin'])
    // Many long paths under one long name (V8 hashes strings this long by their length alone, so a set of them
    // compares each with all the others): the walk stops at the limit.
    expect(sensitivePathsOf({ properties: { ['k'.repeat(16_400)]: writeOnly(40_000) } })).toEqual([''])
  })

  it('bounds declared paths and their union with the described ones alike', () => {
    const many = Array.from({ length: MAX_SENSITIVE_PATHS + 1 }, (_, i) => `p${i}`)
    expect(declaredPaths({ sensitivePaths: many })).toEqual([''])
    expect(declaredPaths({ sensitivePaths: many.slice(1) })).toHaveLength(MAX_SENSITIVE_PATHS)
    expect(joinPaths(many.slice(0, 200), many.slice(100, 256))).toHaveLength(256)
    expect(joinPaths(many.slice(0, 200), many.slice(200))).toEqual([''])
    expect(maskAtPaths({ card: '4242', name: 'A' }, [''])).toBe(MASKED)
  })
})

describe('the text and key heuristics, over generated phrasings and spellings (property)', () => {
  const keyword = fc.constantFrom(
    'cvc',
    'cvv',
    'cvc2',
    'cvv2',
    'csc',
    'cvn',
    'security code',
    'card verification code',
    'card verification value',
    'verification code',
  )
  const casing = fc.constantFrom(
    (s: string) => s,
    (s: string) => s.toUpperCase(),
    (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase()),
  )
  const connector = fc.constantFrom(
    ' ',
    ': ',
    ' is ',
    ' = ',
    '=',
    '',
    ' number is ',
    ' code: ',
    ' was ',
    ' #',
    ' is: ',
    ' - ',
  )
  const digits = fc.stringMatching(/^\d{3,4}$/)
  const words = fc.array(fc.constantFrom('my', 'the', 'please', 'use', 'card', 'ok', 'and', 'thanks'), {
    maxLength: 4,
  })
  const sep = fc.constantFrom(' ', ', ', '. ', ' (', '\n')

  it('never stores a CVC typed after its keyword', () => {
    fc.assert(
      fc.property(
        words,
        keyword,
        casing,
        connector,
        digits,
        sep,
        words,
        (pre, kw, cased, conn, code, s, post) => {
          const text = `${[...pre, cased(kw)].join(' ')}${conn}${code}${s}${post.join(' ')}`
          const masked = maskText(text)
          expect(masked).not.toMatch(new RegExp(`(^|\\D)${code}(\\D|$)`))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('never stores a card number, however it is grouped', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{13,19}$/),
        fc.constantFrom('', ' ', '-'),
        words,
        (number, group, pre) => {
          const grouped = number.replace(/(\d{4})(?=\d)/g, `$1${group}`)
          const masked = maskText(`${pre.join(' ')} ${grouped} now`)
          expect(masked).not.toContain(grouped)
          expect(masked).toContain(`**** ${number.slice(-4)}`)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('redacts values under CVC and password keys in camelCase, PascalCase, snake, kebab or UPPER spelling', () => {
    const core = fc.constantFrom(
      ['cvc'],
      ['cvv'],
      ['cvv2'],
      ['cvc2'],
      ['csc'],
      ['security', 'code'],
      ['card', 'verification', 'value'],
      ['password'],
      ['pass', 'code'],
      ['pin'],
    )
    const prefix = fc.constantFrom([], ['card'], ['payment'], ['billing'], ['new'], ['my', 'card'])
    const glued = (w: string[]) => w.join('')
    const spell = fc.constantFrom(
      (w: string[]) => w.map((x, i) => (i === 0 ? x : x[0]!.toUpperCase() + x.slice(1))).join(''),
      (w: string[]) => w.map((x) => x[0]!.toUpperCase() + x.slice(1)).join(''),
      (w: string[]) => w.join('_'),
      (w: string[]) => w.join('-'),
      (w: string[]) => w.join('_').toUpperCase(),
      glued,
    )
    const value = fc.oneof(
      fc.stringMatching(/^\d{3,4}$/),
      fc.integer({ min: 100, max: 9999 }),
      fc.constant({ v: '1' }),
    )
    fc.assert(
      fc.property(prefix, core, spell, value, (pre, key, spelled, v) => {
        // Short words (pin, csc) count only as words: "spinner" must not match, so "paymentpin" does not.
        fc.pre(!(spelled === glued && pre.length > 0 && ['pin', 'csc'].includes(key[0]!)))
        const name = spelled([...pre, ...key])
        expect(isSensitiveKey(name)).toBe(true)
        expect(maskValue({ data: { [name]: v } })).toEqual({ data: { [name]: '[redacted]' } })
      }),
      { numRuns: 2000 },
    )
  })

  it('leaves ordinary keys alone', () => {
    for (const key of ['name', 'description', 'spinner', 'opinion', 'cardNumber', 'title', 'notes', 'city'])
      expect(isSensitiveKey(key), key).toBe(false)
  })
})

/** The secret corpus of `@toolmark/protocol`, which the PHP package's MaskTest reads too. */
describe('the shared secret corpus', () => {
  const dir = new URL('../../../../protocol/src/__fixtures__/secrets/', import.meta.url)
  const read = (name: string): unknown => JSON.parse(readFileSync(new URL(name, dir), 'utf8'))
  const text = read('text.json') as { name: string; in: string; out: string }[]
  const values = read('values.json') as { name: string; in: unknown; out: unknown }[]
  const keys = read('keys.json') as { secret: string[]; plain: string[] }

  it.each(text.map((c) => [c.name, c] as const))('text: %s', (_name, c) => {
    expect(maskText(c.in)).toBe(c.out)
  })

  it.each(values.map((c) => [c.name, c] as const))('value: %s', (_name, c) => {
    expect(maskValue(c.in)).toEqual(c.out)
  })

  it('masks every secret key and no plain one', () => {
    expect(keys.secret.filter((k) => !isSensitiveKey(k))).toEqual([])
    expect(keys.plain.filter((k) => isSensitiveKey(k))).toEqual([])
  })

  it("both system prompts, the follow-up's too, carry the protocol's secret rule", () => {
    expect(SYSTEM_PROMPT.endsWith(SECRETS.SECRET_PROMPT_RULE)).toBe(true)
    expect(FOLLOW_UP_PROMPT.endsWith(SECRETS.SECRET_PROMPT_RULE)).toBe(true)
  })
})
