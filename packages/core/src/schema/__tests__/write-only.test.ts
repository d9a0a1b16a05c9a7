import { pageCallTool } from '@toolmark/protocol'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { parsePath } from '../paths.ts'
import { markWriteOnly } from '../write-only.ts'

const paths = (...list: string[]) => list.map(parsePath)

describe('markWriteOnly', () => {
  const schema = {
    type: 'object',
    properties: {
      card: { type: 'object', properties: { number: { type: 'string' }, cvc: { type: 'string' } } },
      cards: {
        type: 'array',
        items: { type: 'object', properties: { cvc: { type: 'string' }, label: { type: 'string' } } },
      },
      either: { anyOf: [{ type: 'string' }, { type: 'object', properties: { pin: { type: 'string' } } }] },
      name: { type: 'string' },
    },
  }

  it('marks properties, array items and union branches, and copies only along the marked paths', () => {
    const before = structuredClone(schema)
    const out = markWriteOnly(schema, paths('card.cvc', 'cards[].cvc', 'either.pin', 'either'))
    expect(schema).toEqual(before) // never mutated
    const p = out.properties as typeof schema.properties
    expect(p.card.properties.cvc).toEqual({ type: 'string', writeOnly: true })
    expect(p.card.properties.number).toEqual({ type: 'string' })
    expect(p.cards.items.properties.cvc).toEqual({ type: 'string', writeOnly: true })
    expect(p.cards.items.properties.label).toBe(schema.properties.cards.items.properties.label)
    expect(p.either).toMatchObject({
      writeOnly: true,
      anyOf: [{ type: 'string' }, { properties: { pin: { writeOnly: true } } }],
    })
    expect(p.name).toBe(schema.properties.name)
  })

  it('returns the same schema when no path is described, and marks the root for an empty path', () => {
    expect(markWriteOnly(schema, paths('missing.x', 'name.deeper'))).toEqual(schema)
    expect(markWriteOnly(schema, [[]])).toEqual({ ...schema, writeOnly: true })
  })
})

describe("a tool's sensitive paths in its described input schema", () => {
  it('are marked writeOnly: true in describe and the full manifest; other properties are untouched', () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'settings.updateCard',
      description: 'Update the payment card',
      hints: { consequential: true },
      input: z.object({ number: z.string(), cvc: z.string(), expiry: z.string() }),
      sensitivePaths: ['number', 'cvc'],
      run: () => ok(),
    })
    const props = tm.describe('settings.updateCard')!.inputSchema.properties as Record<string, object>
    expect(props.number).toMatchObject({ type: 'string', writeOnly: true })
    expect(props.cvc).toMatchObject({ type: 'string', writeOnly: true })
    expect(props.expiry).not.toHaveProperty('writeOnly')
    const [full] = tm.manifest({ detail: 'full' }).tools
    expect(full?.inputSchema.properties).toEqual(props)
  })

  it('follow a sensitivePaths function, and do not change a jsonSchema override', () => {
    const override = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } }
    const copy = structuredClone(override)
    let current = ['a']
    const tm = createTestToolmark()
    tm.register({
      name: 'x',
      description: 'x',
      hints: { readOnly: true },
      jsonSchema: override,
      sensitivePaths: () => current,
      run: () => ok(),
    })
    const props = () => tm.describe('x')!.inputSchema.properties as Record<string, { writeOnly?: true }>
    expect([props().a?.writeOnly, props().b?.writeOnly]).toEqual([true, undefined])
    current = ['b']
    expect([props().a?.writeOnly, props().b?.writeOnly]).toEqual([undefined, true])
    expect(override).toEqual(copy)
  })

  it('mark the whole input when the sensitive paths cannot be read', () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'x',
      description: 'x',
      hints: { readOnly: true },
      input: z.object({ a: z.string() }),
      sensitivePaths: () => {
        throw new Error('nope')
      },
      run: () => ok(),
    })
    expect(tm.describe('x')!.inputSchema).toMatchObject({ type: 'object', writeOnly: true })
  })
})

describe("a tool's sensitive paths in its manifest summary entry", () => {
  it("are published as sensitivePaths (only when declared) without changing page_call's rendered text", () => {
    const tm = createTestToolmark()
    const card = {
      name: 'settings.updateCard',
      description: 'Update the payment card',
      hints: { consequential: true },
      input: z.object({ number: z.string(), cvc: z.string() }),
      run: () => ok(),
    }
    tm.register({ ...card, sensitivePaths: () => ['number', 'cards[].cvc'] })
    tm.register({ ...card, name: 'plain', sensitivePaths: [] })
    tm.register({
      ...card,
      name: 'broken',
      sensitivePaths: () => {
        throw new Error('nope')
      },
    })
    const tools = tm.manifest().tools
    expect(tools.map((t) => [t.name, t.sensitivePaths])).toEqual([
      ['broken', ['']],
      ['plain', undefined],
      ['settings.updateCard', ['number', 'cards[].cvc']],
    ])
    const bare = tools.map(({ sensitivePaths: _drop, ...rest }) => rest)
    expect(pageCallTool(tools).description).toBe(pageCallTool(bare).description)
  })
})
