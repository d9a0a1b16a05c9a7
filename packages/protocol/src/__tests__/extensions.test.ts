import { readdirSync, readFileSync } from 'node:fs'
import Ajv2020 from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { extensionSchemas, PROGRESS_EXTENSION, validateExtensionMessage } from '../extensions.ts'
import { validateMessage } from '../validate.ts'

/** One message of the extension corpus in src/__fixtures__/extensions/{accept,reject}/{toAgent,toPage}. */
interface Fixture {
  name: string
  expected: 'accept' | 'reject'
  direction: 'toAgent' | 'toPage'
  value: unknown
}

function loadFixtures(): Fixture[] {
  const root = new URL('../__fixtures__/extensions/', import.meta.url)
  const out: Fixture[] = []
  for (const expected of ['accept', 'reject'] as const)
    for (const direction of ['toAgent', 'toPage'] as const) {
      const dir = new URL(`${expected}/${direction}/`, root)
      for (const file of readdirSync(dir).sort())
        out.push({
          name: `${expected}/${direction}/${file}`,
          expected,
          direction,
          value: JSON.parse(readFileSync(new URL(file, dir), 'utf8')),
        })
    }
  return out
}

const ajv = new Ajv2020({ strict: true, allErrors: false })
const schemas = {
  toAgent: ajv.compile(extensionSchemas.pageToAgent),
  toPage: ajv.compile(extensionSchemas.agentToPage),
}
const fixtures = loadFixtures()

describe('extension messages', () => {
  it('the corpus has accepted and rejected messages of each type in each direction', () => {
    const kinds = new Set(
      fixtures.map((f) => `${f.expected}/${f.direction}/${(f.value as { type: string }).type}`),
    )
    for (const kind of [
      'accept/toAgent/extensions',
      'accept/toAgent/progress',
      'accept/toAgent/context',
      'accept/toPage/extensions',
      'reject/toAgent/extensions',
      'reject/toAgent/progress',
      'reject/toAgent/context',
      'reject/toPage/extensions',
    ])
      expect(kinds).toContain(kind)
  })

  it.each(fixtures.map((f) => [f.name, f] as const))(
    '%s: the validator and the JSON Schema agree',
    (_n, f) => {
      const ours = validateExtensionMessage(f.value, f.direction as 'toAgent')
      expect(ours.ok, ours.ok ? 'accepted' : ours.reason).toBe(f.expected === 'accept')
      const theirs = schemas[f.direction](f.value)
      expect(theirs, JSON.stringify(schemas[f.direction].errors)).toBe(f.expected === 'accept')
    },
  )

  it.each(fixtures.filter((f) => f.expected === 'accept').map((f) => [f.name, f] as const))(
    '%s: a plain v1 party rejects it, so it never reaches one that did not opt in',
    (_n, f) => {
      expect(validateMessage(f.value, f.direction).ok).toBe(false)
    },
  )

  it('plain v1 messages are not extension messages', () => {
    const manifest = { protocol: 1, type: 'manifest', clientId: 'c', rev: 0, tools: [] }
    expect(validateExtensionMessage(manifest, 'toAgent')).toEqual({
      ok: false,
      reason: 'not an extension message',
    })
    expect(validateExtensionMessage(null, 'toAgent').ok).toBe(false)
  })

  it('returns the message itself, and names the progress extension', () => {
    const offer = { protocol: 1, type: 'extensions', clientId: 'c', offer: [PROGRESS_EXTENSION] }
    const checked = validateExtensionMessage(offer, 'toAgent')
    expect(checked.ok && checked.message).toBe(offer)
    expect(PROGRESS_EXTENSION).toBe('progress')
  })
})
