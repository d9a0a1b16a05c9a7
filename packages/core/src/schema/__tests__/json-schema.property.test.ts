import type { StandardSchemaV1 } from '@standard-schema/spec'
import Ajv2020 from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../../types.ts'
import { fromJsonSchema } from '../json-schema.ts'

const keys = fc.constantFrom('a', 'b', 'name', 'tags', 'kind', 'x-id')
const leaf = fc.oneof(
  fc.integer({ min: -5, max: 12 }),
  // ajv's multipleOf divides and rounds, which is inexact for subnormal and huge values; stay clear of those.
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((n) => n === 0 || Math.abs(n) > 1e-6),
  fc.constantFrom(0.5, 'a', 'ab', 'abc', '😀😀', 'A1', 'x', ''),
  fc.string({ maxLength: 6 }),
  fc.boolean(),
  fc.constant(null),
)
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
}))

const small = fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constantFrom('a', 'ab', 'abc', 'x', null, true))

/** Schemas within the documented subset (integer multipleOf: ajv has no float tolerance). */
const schemas: JsonSchema[] = [
  { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 10 } }, required: ['a'] },
  { type: ['string', 'null'], minLength: 2, maxLength: 3, pattern: '^[a-z😀]+$' },
  { type: 'number', exclusiveMinimum: -1, exclusiveMaximum: 11, multipleOf: 3 },
  { type: 'array', items: { type: ['integer', 'string'] }, minItems: 1, maxItems: 3, uniqueItems: true },
  { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string' }], items: false },
  {
    type: 'object',
    properties: { name: { type: 'string' }, tags: { type: 'array', items: { enum: ['a', 'ab', 1, null] } } },
    patternProperties: { '^x-': { type: 'integer' } },
    additionalProperties: { type: 'boolean' },
    minProperties: 1,
    maxProperties: 3,
  },
  { anyOf: [{ type: 'string', minLength: 2 }, { type: 'integer' }, { const: { a: 1 } }] },
  { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 2 }, { type: 'array', maxItems: 1 }] },
  { allOf: [{ type: 'object' }, { required: ['kind'] }], not: { properties: { kind: { const: 'a' } } } },
  {
    $defs: {
      node: {
        type: ['object', 'integer'],
        properties: { a: { $ref: '#/$defs/node' } },
        additionalProperties: false,
      },
    },
    $ref: '#/$defs/node',
  },
]

/** Values near each schema's edge, so both verdicts occur often (random JSON alone is mostly invalid). */
const near: fc.Arbitrary<unknown>[] = [
  fc.record({ a: small, b: leaf }, { requiredKeys: [] }),
  fc.constantFrom('ab', 'abc', '😀😀', 'a', 'abcd', 'A1', null, 'a😀'),
  fc.integer({ min: -3, max: 14 }),
  fc.array(small, { maxLength: 4 }),
  fc.array(small, { maxLength: 3 }),
  fc.record(
    {
      name: small,
      tags: fc.array(fc.constantFrom('a', 'ab', 1, null, 'z'), { maxLength: 3 }),
      'x-id': small,
      b: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
  fc.oneof(small, fc.constantFrom({ a: 1 }, { a: 2 }, { a: 1, b: 1 })),
  fc.oneof(small, fc.constant(2.5), fc.array(small, { maxLength: 2 })),
  fc.record({ kind: fc.constantFrom('a', 'b'), b: small }, { requiredKeys: [] }),
  fc.constantFrom(
    1,
    2.5,
    {},
    { a: 1 },
    { a: { a: 2 } },
    { a: { b: 1 } },
    { a: 'x' },
    { a: { a: { a: {} } } },
  ),
]

describe('fromJsonSchema agrees with ajv (draft 2020-12) on the supported subset', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  it.each(schemas.map((s, i) => [i, s] as const))('schema %i', (_i, schema) => {
    const theirs = ajv.compile(schema)
    const ours = fromJsonSchema(schema)['~standard']
    fc.assert(
      fc.property(fc.oneof(value, near[_i] as fc.Arbitrary<unknown>), (v) => {
        const result = ours.validate(v) as StandardSchemaV1.Result<unknown>
        expect(result.issues === undefined).toBe(theirs(v))
      }),
      { numRuns: 400 },
    )
  })
})
