import { readdirSync, readFileSync } from 'node:fs'
import Ajv2020 from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { CONFIRM_EXTENSION, extensionSchemas, extensionsOf, validateExtendedMessage } from '../extensions.ts'
import type { ManifestMessage } from '../messages.ts'
import { protocolSchemas } from '../schemas.ts'
import { validateMessage } from '../validate.ts'

const root = new URL('../__fixtures__/extensions/', import.meta.url)
const fixtures = (['accept', 'reject'] as const).flatMap((expected) =>
  (['toPage', 'toAgent'] as const).flatMap((direction) => {
    const dir = new URL(`${expected}/${direction}/`, root)
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((file) => ({
        name: `${expected}/${direction}/${file}`,
        expected,
        direction,
        value: JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Record<string, unknown>,
      }))
  }),
)

const ajv = new Ajv2020({ strict: true, allErrors: false })
const confirmSchema = ajv.compile(extensionSchemas.confirmMessage)
const extensionsSchema = ajv.compile(extensionSchemas.extensions)
const pageToAgent = ajv.compile(protocolSchemas.pageToAgent)

describe('bridge v1 extensions', () => {
  it('has fixtures both ways', () => {
    expect(fixtures.filter((f) => f.expected === 'accept').length).toBeGreaterThanOrEqual(7)
    expect(fixtures.filter((f) => f.expected === 'reject').length).toBeGreaterThanOrEqual(14)
  })

  it.each(fixtures.map((f) => [f.name, f] as const))('%s', (_, f) => {
    const ours = validateExtendedMessage(f.value, f.direction)
    expect(ours.ok, ours.ok ? '' : ours.reason).toBe(f.expected === 'accept')
    // Plain v1 never accepts what only an extension adds: a page or server that did not opt in is unchanged.
    expect(validateMessage(f.value, f.direction).ok).toBe(false)
    // The JSON Schemas agree with the validator.
    if (f.value.protocol !== 1) return
    if (f.direction === 'toPage' && f.value.type === 'confirm')
      expect(confirmSchema(f.value)).toBe(f.expected === 'accept')
    if (f.direction === 'toAgent' && f.value.type === 'manifest') {
      const { extensions, ...rest } = f.value
      expect(extensionsSchema(extensions) && pageToAgent(rest)).toBe(f.expected === 'accept')
    }
  })

  it('reads the extensions a manifest lists, none for a plain v1 manifest', () => {
    const plain: ManifestMessage = { protocol: 1, type: 'manifest', clientId: 'c', rev: 0, tools: [] }
    expect(extensionsOf(plain)).toEqual([])
    expect(extensionsOf({ ...plain, extensions: [CONFIRM_EXTENSION] } as ManifestMessage)).toEqual([
      'confirm',
    ])
  })

  it('validates plain v1 messages as validateMessage does', () => {
    const call = { protocol: 1, type: 'call', clientId: 'c', id: 'i', tool: 't', input: {} }
    expect(validateExtendedMessage(call, 'toPage')).toEqual({ ok: true, message: call })
    expect(validateExtendedMessage({ ...call, extra: 1 }, 'toPage').ok).toBe(false)
  })
})
