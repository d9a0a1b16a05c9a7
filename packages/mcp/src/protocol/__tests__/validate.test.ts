import { readdirSync, readFileSync } from 'node:fs'
import Ajv2020 from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { MAX_PAIRING_DEPTH, MAX_PAIRING_MESSAGE, type PairingDirection } from '../messages.ts'
import { pairingSchemas } from '../schemas.ts'
import { UNSUPPORTED_PAIRING_PROTOCOL } from '../to-relay.ts'
import { readPairingMessage, validatePairingMessage } from '../validate.ts'

/** One message of the corpus in src/protocol/__fixtures__/{accept,reject}/{toRelay,toPage}. */
interface Fixture {
  name: string
  expected: 'accept' | 'reject'
  direction: PairingDirection
  value: unknown
}

function loadFixtures(): Fixture[] {
  const fixtures: Fixture[] = []
  for (const expected of ['accept', 'reject'] as const) {
    for (const direction of ['toRelay', 'toPage'] as const) {
      const dir = new URL(`../__fixtures__/${expected}/${direction}/`, import.meta.url)
      for (const file of readdirSync(dir).sort()) {
        const value: unknown = JSON.parse(readFileSync(new URL(file, dir), 'utf8'))
        fixtures.push({ name: `${expected}/${direction}/${file}`, expected, direction, value })
      }
    }
  }
  return fixtures
}

const ajv = new Ajv2020({ strict: true, allErrors: false })
const ajvValidators = {
  toRelay: ajv.compile(pairingSchemas.pageToRelay),
  toPage: ajv.compile(pairingSchemas.relayToPage),
}
const fixtures = loadFixtures()
const typeOf = (f: Fixture): string => (f.value as { type?: string } | null)?.type ?? ''

describe('pairing fixture corpus', () => {
  it('has valid and invalid fixtures for every message type of both directions', () => {
    const types = (expected: Fixture['expected'], direction: PairingDirection): string[] =>
      [
        ...new Set(fixtures.filter((f) => f.expected === expected && f.direction === direction).map(typeOf)),
      ].sort()
    expect(types('accept', 'toRelay')).toEqual([
      'confirm',
      'context',
      'hello',
      'manifest',
      'progress',
      'prompts',
      'result',
    ])
    expect(types('reject', 'toRelay')).toEqual(
      expect.arrayContaining(['confirm', 'context', 'hello', 'manifest', 'progress', 'prompts', 'result']),
    )
    expect(types('accept', 'toPage')).toEqual(['call', 'cancel', 'confirmed', 'error', 'paired', 'pairing'])
    expect(types('reject', 'toPage')).toEqual(
      expect.arrayContaining(['call', 'cancel', 'confirmed', 'error', 'paired', 'pairing']),
    )
  })

  it.each(fixtures.map((f) => [f.name, f] as const))(
    '%s: validatePairingMessage and Ajv 2020 agree',
    (_name, f) => {
      const ours = validatePairingMessage(f.value, f.direction)
      const theirs = ajvValidators[f.direction](f.value)
      expect(ours.ok, ours.ok ? 'accepted' : ours.reason).toBe(f.expected === 'accept')
      expect(theirs, JSON.stringify(ajvValidators[f.direction].errors)).toBe(f.expected === 'accept')
    },
  )

  it('returns the message itself on success', () => {
    const hello = { type: 'hello', v: 1 }
    const result = validatePairingMessage(hello, 'toRelay')
    expect(result.ok && result.message).toBe(hello)
  })
})

describe('validatePairingMessage and Ajv agree on every mutation of the accepted fixtures', () => {
  const replacements: unknown[] = [undefined, null, 0, -1, 1.5, 2, '', 'x', 'a b', 'true', [], [{}], {}, true]
  /** Every value reached by replacing (or deleting) one property of `value`, down to `depth` levels. */
  function* mutations(value: unknown, depth: number): Generator<unknown> {
    if (typeof value !== 'object' || value === null) return
    const record = value as Record<string, unknown>
    for (const key of [...Object.keys(record), 'extra']) {
      for (const replacement of replacements) {
        const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as never) : { ...record }
        if (replacement === undefined) delete copy[key]
        else copy[key] = replacement
        yield copy
      }
      if (depth > 0 && key in record) {
        for (const inner of mutations(record[key], depth - 1)) {
          yield Array.isArray(value)
            ? Object.assign([...value], { [key]: inner })
            : { ...record, [key]: inner }
        }
      }
    }
  }

  it.each(fixtures.filter((f) => f.expected === 'accept').map((f) => [f.name, f] as const))(
    '%s',
    (_name, f) => {
      let checked = 0
      for (const value of mutations(f.value, 2)) {
        const ours = validatePairingMessage(value, f.direction)
        const theirs = ajvValidators[f.direction](value)
        if (ours.ok !== theirs) {
          expect.fail(
            `${JSON.stringify(value)}: validator ${ours.ok ? 'accepts' : `rejects (${ours.reason})`}, Ajv ${theirs}`,
          )
        }
        checked++
      }
      expect(checked).toBeGreaterThan(20)
    },
  )
})

describe('validatePairingMessage reasons', () => {
  it('names the rule a message breaks, never its content', () => {
    const reason = (value: unknown, direction: PairingDirection): string => {
      const r = validatePairingMessage(value, direction)
      return r.ok ? 'accepted' : r.reason
    }
    expect(reason({ type: 'hello', v: 2, resume: 'secret' }, 'toRelay')).toBe(UNSUPPORTED_PAIRING_PROTOCOL)
    expect(reason({ type: 'hello', v: 1, resume: 'a b' }, 'toRelay')).toBe(
      'hello: resume must match ^[A-Za-z0-9_-]{1,256}$',
    )
    expect(reason({ type: 'manifest', rev: 1, tools: [], admin: true }, 'toRelay')).toBe(
      'manifest: unknown property "admin"',
    )
    expect(reason({ type: 'result', id: 'c1', result: { status: 'maybe' } }, 'toRelay')).toBe(
      'result: unknown status',
    )
    expect(reason({ type: 'call', id: 'c1', tool: 'x', input: {} }, 'toRelay')).toBe(
      'wrong direction: a relay→page message',
    )
    expect(reason({ type: 'hello', v: 1 }, 'toPage')).toBe('wrong direction: a page→relay message')
    expect(reason({ type: 'call', id: 'c1', tool: 'x', input: {}, caller: 'human' }, 'toPage')).toBe(
      'call: unknown property "caller"',
    )
  })

  it('quotes an unknown key escaped and cut to 64 characters, so a hostile key cannot flood a log line', () => {
    const key = `${'k'.repeat(100)}\n[toolmark-mcp] forged`
    const r = validatePairingMessage({ type: 'cancel', id: 'c1', [key]: 1 }, 'toPage')
    expect(r).toEqual({ ok: false, reason: `cancel: unknown property "${'k'.repeat(64)}…"` })
  })

  it('never throws: a throwing getter is "message could not be read"', () => {
    const hostile = {
      type: 'cancel',
      get id(): string {
        throw new Error('boom')
      },
    }
    expect(validatePairingMessage(hostile, 'toPage')).toEqual({
      ok: false,
      reason: 'message could not be read',
    })
  })
})

describe('readPairingMessage: the bounded read of a frame', () => {
  it('reads JSON text into a validated message', () => {
    expect(readPairingMessage('{"type":"cancel","id":"c1"}', 'toPage')).toEqual({
      ok: true,
      message: { type: 'cancel', id: 'c1' },
    })
  })

  it('drops binary frames, non-JSON, oversized and too deeply nested frames with their reason', () => {
    expect(readPairingMessage(undefined, 'toRelay')).toEqual({ ok: false, reason: 'not text' })
    expect(readPairingMessage('{"type":', 'toRelay')).toEqual({ ok: false, reason: 'not JSON' })
    const big = `{"type":"error","message":"${'x'.repeat(MAX_PAIRING_MESSAGE)}"}`
    expect(readPairingMessage(big, 'toPage')).toEqual({ ok: false, reason: 'too large' })
    // The message is depth 1, its input depth 2: `levels` nested objects as the input reach depth levels + 1.
    const deepInput = (levels: number): string =>
      `{"type":"call","id":"c1","tool":"t","input":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`
    expect(readPairingMessage(deepInput(MAX_PAIRING_DEPTH - 1), 'toPage').ok).toBe(true)
    expect(readPairingMessage(deepInput(MAX_PAIRING_DEPTH), 'toPage')).toEqual({
      ok: false,
      reason: 'too deep',
    })
  })
})
