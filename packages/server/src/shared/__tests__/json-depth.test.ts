import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nestedDeeperThan } from '../json-depth.ts'

/** The nesting depth of a JSON value (a scalar is 0, `[]` and `{}` are 1). */
const depthOf = (value: unknown): number =>
  typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0

describe('nestedDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false)
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true)
    expect(nestedDeeperThan('{"a":{"b":[1]}}', 3)).toBe(false)
    expect(nestedDeeperThan('{"a":{"b":[[1]]}}', 3)).toBe(true)
    expect(nestedDeeperThan('["[[[[[[", "\\"[[[[[", "\\\\", [[1]]]', 3)).toBe(false)
    expect(nestedDeeperThan('["\\\\"]', 0)).toBe(true)
    expect(nestedDeeperThan('"[[[[', 1)).toBe(false)
    expect(nestedDeeperThan('1', 0)).toBe(false)
  })

  it('agrees with the parsed value for any JSON (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, max) => {
        const text = JSON.stringify(value)
        expect(nestedDeeperThan(text, max)).toBe(depthOf(JSON.parse(text)) > max)
      }),
      { numRuns: 500 },
    )
  })
})
