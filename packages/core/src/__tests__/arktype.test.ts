import { type } from 'arktype'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createTestToolmark } from '../testing/index.ts'
import { ok } from '../tool/result.ts'

describe('ArkType as the input schema (Standard Schema + Standard JSON Schema)', () => {
  it('validates, infers run input and derives the JSON Schema', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'search',
      description: 'Search',
      input: type({ query: 'string', 'limit?': 'number' }),
      hints: { readOnly: true },
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ query: string; limit?: number }>()
        return ok(input.query)
      },
    })
    expect(await tm.call('search', { query: 'chess' }, { caller: 'test' })).toEqual(ok('chess'))
    expect(await tm.call('search', { query: 1 }, { caller: 'test' })).toMatchObject({
      status: 'invalid',
      issues: [{ path: 'query', message: expect.any(String) }],
    })
    expect(tm.describe('search')?.inputSchema).toEqual({
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'number' } },
      required: ['query'],
    })
  })
})
