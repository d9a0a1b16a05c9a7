import Ajv2020 from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REFUSED_CODES } from '../codes.ts'
import { type MessageDirection, PROTOCOL_VERSION } from '../messages.ts'
import { protocolSchemas } from '../schemas.ts'
import { UNSUPPORTED_PROTOCOL, validateMessage } from '../validate.ts'
import { loadFixtures } from './fixtures.ts'

const ajv = new Ajv2020({ strict: true, allErrors: false })
const ajvValidators = {
  toPage: ajv.compile(protocolSchemas.agentToPage),
  toAgent: ajv.compile(protocolSchemas.pageToAgent),
}
const fixtures = loadFixtures()

const C = 'c0a8f7e2-3b1d-4f6a-9c2e-7d5b8a1e4f30'
const call = { protocol: 1, type: 'call', clientId: C, id: 'i1', tool: 'signup.fill', input: {} }

describe('fixture corpus', () => {
  it('covers every message type, every result status and every refused code', () => {
    const accepted = fixtures.filter((f) => f.expected === 'accept')
    expect(accepted.length).toBeGreaterThanOrEqual(25)
    expect(fixtures.filter((f) => f.expected === 'reject').length).toBeGreaterThanOrEqual(40)
    const types = new Set(accepted.map((f) => (f.value as { type: string }).type))
    expect([...types].sort()).toEqual([
      'call',
      'cancel',
      'changed',
      'confirmed',
      'describe',
      'manifest',
      'result',
    ])
    const results = accepted.map((f) => (f.value as { result?: { status: string; code?: string } }).result)
    const statuses = new Set(results.map((r) => r?.status).filter(Boolean))
    expect([...statuses].sort()).toEqual([
      'cancelled',
      'error',
      'invalid',
      'needs_confirmation',
      'ok',
      'refused',
    ])
    const codes = new Set(results.map((r) => r?.code).filter(Boolean))
    expect([...codes].sort()).toEqual(Object.keys(REFUSED_CODES).sort())
  })

  it.each(fixtures.map((f) => [f.name, f] as const))('%s: validateMessage and Ajv 2020 agree', (_name, f) => {
    const ours = validateMessage(f.value, f.direction)
    const theirs = ajvValidators[f.direction](f.value)
    expect(ours.ok, ours.ok ? 'accepted' : ours.reason).toBe(f.expected === 'accept')
    expect(theirs, JSON.stringify(ajvValidators[f.direction].errors)).toBe(f.expected === 'accept')
  })

  it('returns the message itself on success', () => {
    const result = validateMessage(call, 'toPage')
    expect(result).toEqual({ ok: true, message: call })
    expect(result.ok && result.message).toBe(call)
  })
})

describe('validateMessage decisions', () => {
  it('checks protocol before anything else: any shape with another protocol is "unsupported protocol"', () => {
    for (const protocol of [2, 0, '1', null, 1.5, { v: 2 }]) {
      expect(
        validateMessage({ protocol, type: 'call', clientId: C, id: 'x', future: true }, 'toPage'),
      ).toEqual({
        ok: false,
        reason: UNSUPPORTED_PROTOCOL,
      })
      expect(validateMessage({ protocol }, 'toAgent')).toEqual({ ok: false, reason: 'unsupported protocol' })
    }
  })

  it('reports a missing protocol as malformed, not as unsupported', () => {
    const { protocol: _, ...rest } = call
    const result = validateMessage(rest, 'toPage')
    expect(result.ok).toBe(false)
    expect(!result.ok && result.reason).not.toBe(UNSUPPORTED_PROTOCOL)
  })

  it('rejects messages travelling the wrong way', () => {
    expect(validateMessage(call, 'toAgent')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('wrong direction'),
    })
    const changed = { protocol: PROTOCOL_VERSION, type: 'changed', clientId: C, rev: 1 }
    expect(validateMessage(changed, 'toAgent').ok).toBe(true)
    expect(validateMessage(changed, 'toPage')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('wrong direction'),
    })
  })

  it('rejects an unknown direction instead of throwing', () => {
    expect(validateMessage(call, 'sideways' as MessageDirection)).toEqual({
      ok: false,
      reason: 'unknown direction',
    })
  })

  it('treats a property holding undefined as absent, like JSON and Ajv', () => {
    expect(validateMessage({ ...call, rev: undefined }, 'toPage').ok).toBe(true)
    expect(validateMessage({ ...call, input: undefined }, 'toPage').ok).toBe(false)
  })

  it('never throws on hostile values: throwing getters, revoked proxies, throwing traps', () => {
    const getter = { ...call }
    Object.defineProperty(getter, 'tool', {
      enumerable: true,
      get() {
        throw new Error('boom')
      },
    })
    const { proxy: revoked, revoke } = Proxy.revocable({}, {})
    revoke()
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
      },
    )
    for (const value of [getter, revoked, trap]) {
      expect(validateMessage(value, 'toPage')).toEqual({ ok: false, reason: 'message could not be read' })
    }
  })
})

// ---- property test: the validator and the schema agree on mutated messages ----

const C2 = '7'
const templates: Record<MessageDirection, unknown[]> = {
  toPage: [
    call,
    { ...call, rev: 3, input: { a: [1, { b: null }] } },
    { protocol: 1, type: 'describe', clientId: C2, id: 'd', tool: 'x' },
    { protocol: 1, type: 'cancel', clientId: C2, id: 'd' },
  ],
  toAgent: [
    {
      protocol: 1,
      type: 'manifest',
      clientId: C,
      rev: 0,
      tools: [{ name: 'a.b', llmName: 'a__b', description: 'd', hints: { readOnly: true } }],
    },
    { protocol: 1, type: 'changed', clientId: C, rev: 2 },
    { protocol: 1, type: 'result', clientId: C, id: 'r', result: { status: 'ok', data: { x: 1 } } },
    {
      protocol: 1,
      type: 'result',
      clientId: C,
      id: 'r',
      result: { status: 'refused', code: 'stale', message: 'm', rev: 1 },
    },
    {
      protocol: 1,
      type: 'confirmed',
      clientId: C,
      confirmId: 'k',
      result: {
        status: 'needs_confirmation',
        confirmId: 'k',
        summary: 's',
        changes: [{ path: 'p', after: 1 }],
      },
    },
    {
      protocol: 1,
      type: 'result',
      clientId: C,
      id: 'r',
      result: { status: 'invalid', issues: [{ path: '', message: 'm' }] },
    },
    { protocol: 1, type: 'result', clientId: C, id: 'r', result: { status: 'cancelled', by: 'policy' } },
  ],
}

const interesting = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    '',
    'x'.repeat(257),
    'a.b',
    'a b',
    -1,
    0,
    1.5,
    2 ** 53,
    'manifest',
    'call',
    'ok',
    'refused',
    ...Object.keys(REFUSED_CODES),
    'signal',
    true,
    null,
    [],
    {},
  ),
)
const keys = fc.constantFrom(
  'protocol',
  'type',
  'clientId',
  'id',
  'tool',
  'input',
  'rev',
  'tools',
  'result',
  'confirmId',
  'status',
  'data',
  'code',
  'message',
  'by',
  'changes',
  'summary',
  'issues',
  'path',
  'name',
  'llmName',
  'description',
  'hints',
  'readOnly',
  'extra',
)

/** Replace, add or delete one property somewhere inside `value` (a JSON tree). */
function mutate(value: unknown, path: number[], key: string, replacement: unknown, remove: boolean): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown
  let node: unknown = copy
  for (const step of path) {
    const children =
      node && typeof node === 'object' ? Object.values(node).filter((v) => v && typeof v === 'object') : []
    if (children.length === 0) break
    node = children[step % children.length]
  }
  if (node && typeof node === 'object' && !Array.isArray(node)) {
    const record = node as Record<string, unknown>
    if (remove) delete record[key]
    else record[key] = replacement
  } else if (Array.isArray(node)) {
    if (remove) node.pop()
    else node.push(replacement)
  }
  return copy
}

describe('validateMessage and the JSON Schemas agree on mutated messages (property)', () => {
  for (const direction of ['toPage', 'toAgent'] as const) {
    it(direction, () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...templates[direction]),
          fc.array(fc.nat(), { maxLength: 4 }),
          keys,
          interesting,
          fc.boolean(),
          (template, path, key, replacement, remove) => {
            const value = mutate(template, path, key, replacement, remove)
            const ours = validateMessage(value, direction)
            expect(ours.ok).toBe(ajvValidators[direction](value))
          },
        ),
        { numRuns: 3000 },
      )
    })
  }
})

describe('unknown properties', () => {
  const msg = { protocol: 1, clientId: C }
  const result = (r: object) => ({ ...msg, type: 'result', id: 'i1', result: r })
  const needsConfirmation = { status: 'needs_confirmation', confirmId: 'k1', summary: 's', changes: [] }
  /** The exact reason, the direction, a valid message, and where its extra property goes. */
  const cases: Array<[string, MessageDirection, object, Array<string | number>]> = [
    ['call: unknown property', 'toPage', call, []],
    ['describe: unknown property', 'toPage', { ...msg, type: 'describe', id: 'i1', tool: 'a.b' }, []],
    ['cancel: unknown property', 'toPage', { ...msg, type: 'cancel', id: 'i1' }, []],
    ['manifest: unknown property', 'toAgent', { ...msg, type: 'manifest', rev: 1, tools: [] }, []],
    ['changed: unknown property', 'toAgent', { ...msg, type: 'changed', rev: 1 }, []],
    ['result: unknown property', 'toAgent', result({ status: 'ok' }), []],
    [
      'confirmed: unknown property',
      'toAgent',
      { ...msg, type: 'confirmed', confirmId: 'k1', result: { status: 'ok' } },
      [],
    ],
    ['ok result: unknown property', 'toAgent', result({ status: 'ok', data: 1 }), ['result']],
    [
      'cancelled result: unknown property',
      'toAgent',
      result({ status: 'cancelled', by: 'signal' }),
      ['result'],
    ],
    ['error result: unknown property', 'toAgent', result({ status: 'error', message: 'm' }), ['result']],
    ['invalid result: unknown property', 'toAgent', result({ status: 'invalid', issues: [] }), ['result']],
    [
      'invalid result: unknown issue property',
      'toAgent',
      result({ status: 'invalid', issues: [{ path: '/a', message: 'm' }] }),
      ['result', 'issues', 0],
    ],
    [
      'refused result: unknown property',
      'toAgent',
      result({ status: 'refused', code: 'busy', message: 'm' }),
      ['result'],
    ],
    ['needs_confirmation result: unknown property', 'toAgent', result(needsConfirmation), ['result']],
    [
      'needs_confirmation result: unknown change property',
      'toAgent',
      result({ ...needsConfirmation, changes: [{ path: '/a', before: 1, after: 2 }] }),
      ['result', 'changes', 0],
    ],
  ]

  it.each(cases)('%s', (reason, direction, valid, path) => {
    expect(validateMessage(valid, direction).ok).toBe(true)
    // A property another strict object allows is still unknown here.
    for (const extra of ['x', 'tools', 'summary']) {
      const value = structuredClone(valid) as Record<string | number, unknown>
      let target = value
      for (const step of path) target = target[step] as Record<string | number, unknown>
      if (extra in target) continue
      target[extra] = 1
      expect(validateMessage(value, direction)).toEqual({ ok: false, reason })
    }
  })
})
