import type { StandardSchemaV1 } from '@standard-schema/spec'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { toIssues } from '../validate.ts'

async function issuesOf(schema: StandardSchemaV1, value: unknown) {
  const result = await schema['~standard'].validate(value)
  return result.issues ? toIssues(result.issues) : []
}

describe('toIssues', () => {
  it('joins keys and { key } segments with dots; no path is the root', () => {
    expect(
      toIssues([
        { message: 'a', path: ['cards', 0, 'cvc'] },
        { message: 'b', path: [{ key: 'cards' }, { key: 1 }] },
        { message: 'c' },
        { message: 'd', path: [] },
        { message: 'e', path: [Symbol('sym'), 'x'] },
      ]),
    ).toEqual([
      { path: 'cards.0.cvc', message: 'a' },
      { path: 'cards.1', message: 'b' },
      { path: '', message: 'c' },
      { path: '', message: 'd' },
      { path: 'sym.x', message: 'e' },
    ])
  })

  it('maps zod 4 issues', async () => {
    const schema = z.object({ name: z.string(), cards: z.array(z.object({ cvc: z.string().length(3) })) })
    const issues = await issuesOf(schema, { name: 1, cards: [{ cvc: '123' }, { cvc: '1' }] })
    expect(issues.map((i) => i.path)).toEqual(['name', 'cards.1.cvc'])
    expect(issues.every((i) => typeof i.message === 'string' && i.message.length > 0)).toBe(true)
    expect(await issuesOf(z.string(), 5)).toEqual([{ path: '', message: expect.any(String) }])
  })

  it('maps valibot issues (path segments are objects with a key)', async () => {
    const schema = v.object({
      name: v.string(),
      cards: v.array(v.object({ cvc: v.pipe(v.string(), v.length(3)) })),
    })
    const issues = await issuesOf(schema, { name: 1, cards: [{ cvc: '123' }, { cvc: '1' }] })
    expect(issues.map((i) => i.path)).toEqual(['name', 'cards.1.cvc'])
    expect(await issuesOf(v.string(), 5)).toEqual([{ path: '', message: expect.any(String) }])
  })
})
