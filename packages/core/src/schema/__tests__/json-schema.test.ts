import type { StandardSchemaV1 } from '@standard-schema/spec'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import type { JsonSchema } from '../../types.ts'
import { fromJsonSchema } from '../json-schema.ts'
import { toIssues } from '../validate.ts'

/** Validates synchronously and returns `path: message` lines (`''` path for the root). */
function check(schema: JsonSchema, value: unknown): string[] {
  const result = fromJsonSchema(schema)['~standard'].validate(value) as StandardSchemaV1.Result<unknown>
  expect(result).not.toBeInstanceOf(Promise)
  return result.issues ? toIssues(result.issues).map((i) => `${i.path}: ${i.message}`) : []
}

describe('fromJsonSchema: the Standard Schema interface', () => {
  const schema = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }
  const validator = fromJsonSchema<{ query: string }>(schema)

  it('is a synchronous Standard Schema with vendor toolmark that returns the input itself', () => {
    const std = validator['~standard']
    expect(std.version).toBe(1)
    expect(std.vendor).toBe('toolmark')
    const input = { query: 'robotics' }
    const ok = std.validate(input)
    expect(ok).toEqual({ value: input })
    expect((ok as { value: unknown }).value).toBe(input)
    expect(std.validate({})).toEqual({ issues: [{ message: 'Missing required property', path: ['query'] }] })
  })

  it('returns its JSON Schema through the Standard JSON Schema interface', () => {
    const std = validator['~standard']
    expect(std.jsonSchema.input({ target: 'draft-2020-12' })).toBe(schema)
    expect(std.jsonSchema.output({ target: 'draft-07' })).toBe(schema)
  })

  it('keeps calls independent: issues never leak into the next call, re-entrant calls work', () => {
    const std = fromJsonSchema({ type: 'object', properties: { n: { type: 'number' } } })['~standard']
    const first = std.validate({ n: 'x' }) as StandardSchemaV1.FailureResult
    expect(std.validate({ n: 1 })).toEqual({ value: { n: 1 } })
    expect(first.issues).toEqual([{ message: 'Expected number', path: ['n'] }])
    let inner: unknown
    const tricky = {
      get n() {
        inner = std.validate({ n: 'inner' })
        return 'outer'
      },
    }
    expect(std.validate(tricky)).toEqual({ issues: [{ message: 'Expected number', path: ['n'] }] })
    expect(inner).toEqual({ issues: [{ message: 'Expected number', path: ['n'] }] })
  })

  it('does not throw on non-JSON values', () => {
    expect(check({ uniqueItems: true }, [1n, 2n, 1n])).toEqual([
      ': Expected unique items (items 0 and 2 are equal)',
    ])
    expect(check({ const: { a: 1 }, enum: ['x'] }, { a: 1n })).toEqual([
      ': Expected one of: "x"',
      ': Expected {"a":1}',
    ])
    expect(check({ type: 'integer' }, 1n)).toEqual([': Expected integer'])
    expect(check({ uniqueItems: true }, [Symbol('a'), () => 1, undefined])).toEqual([])
  })

  it('applies no defaults and no coercion', () => {
    const s = { type: 'object', properties: { n: { type: 'number', default: 1 } } }
    const input = {}
    const result = fromJsonSchema(s)['~standard'].validate(input) as { value: unknown }
    expect(result.value).toBe(input)
    expect(input).toEqual({})
    expect(check({ type: 'number' }, '5')).toEqual([': Expected number'])
  })
})

describe('fromJsonSchema: keywords', () => {
  it('type: each name, lists, integer vs number, non-finite numbers', () => {
    const samples: [string, unknown, unknown][] = [
      ['object', {}, []],
      ['array', [], {}],
      ['string', '', 1],
      ['number', 1.5, Number.NaN],
      ['integer', 2, 2.5],
      ['boolean', false, 0],
      ['null', null, undefined],
    ]
    for (const [type, good, bad] of samples) {
      expect(check({ type }, good)).toEqual([])
      expect(check({ type }, bad)).toEqual([`: Expected ${type}`])
    }
    expect(check({ type: 'number' }, Number.POSITIVE_INFINITY)).toEqual([': Expected number'])
    expect(check({ type: 'number' }, 3)).toEqual([])
    expect(check({ type: ['string', 'null'] }, null)).toEqual([])
    expect(check({ type: ['string', 'null'] }, 1)).toEqual([': Expected string or null'])
  })

  it('a failing type skips the rest of that schema', () => {
    expect(check({ type: 'string', minLength: 3, enum: ['abc'] }, 5)).toEqual([': Expected string'])
  })

  it('properties, required, additionalProperties with nested issue paths', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        cards: {
          type: 'array',
          items: {
            type: 'object',
            properties: { cvc: { type: 'string', minLength: 3 } },
            required: ['cvc'],
            additionalProperties: false,
          },
        },
      },
      required: ['name'],
    }
    expect(check(schema, { name: 'a', cards: [{ cvc: '123' }] })).toEqual([])
    expect(check(schema, { cards: [{ cvc: '12', x: 1 }, {}, 'no'] })).toEqual([
      'name: Missing required property',
      'cards.0.cvc: Expected at least 3 characters',
      'cards.0.x: Unknown property',
      'cards.1.cvc: Missing required property',
      'cards.2: Expected object',
    ])
    // undefined counts as absent.
    expect(check(schema, { name: undefined })).toEqual(['name: Missing required property'])
    expect(
      check(
        { properties: { a: { type: 'string' } }, additionalProperties: false },
        { a: undefined, b: undefined },
      ),
    ).toEqual([])
  })

  it('additionalProperties as a schema, patternProperties, min/maxProperties', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'integer' } },
      patternProperties: { '^x-': { type: 'string' } },
      additionalProperties: { type: 'number' },
      minProperties: 2,
      maxProperties: 3,
    }
    expect(check(schema, { id: 1, 'x-a': 'y', other: 2 })).toEqual([])
    expect(check(schema, { id: 1, 'x-a': 1, other: 'z', more: 3 })).toEqual([
      'x-a: Expected string',
      'other: Expected number',
      ': Expected at most 3 properties',
    ])
    expect(check(schema, { id: 1 })).toEqual([': Expected at least 2 properties'])
  })

  it('validates __proto__ keys as data, without pollution', () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"a":"x"}')
    expect(
      check({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, input),
    ).toEqual(['__proto__: Unknown property'])
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"number"}},"required":["__proto__"]}',
    )
    expect(check(schema, input)).toEqual(['__proto__: Expected number'])
    expect(check(schema, { a: 1 })).toEqual(['__proto__: Missing required property'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('items, prefixItems, draft-07 tuples, minItems, maxItems, uniqueItems', () => {
    expect(check({ items: { type: 'string' } }, ['a', 1])).toEqual(['1: Expected string'])
    const tuple = { prefixItems: [{ type: 'string' }, { type: 'number' }], items: false }
    expect(check(tuple, ['a', 1])).toEqual([])
    expect(check(tuple, [1, 'a', true])).toEqual([
      '0: Expected string',
      '1: Expected number',
      '2: No value is allowed here',
    ])
    expect(
      check({ items: [{ type: 'string' }], additionalItems: { type: 'boolean' } }, ['a', true, 1]),
    ).toEqual(['2: Expected boolean'])
    expect(check({ minItems: 2, maxItems: 3 }, [1])).toEqual([': Expected at least 2 items'])
    expect(check({ minItems: 1 }, [])).toEqual([': Expected at least 1 item'])
    expect(check({ maxItems: 1 }, [1, 2])).toEqual([': Expected at most 1 item'])
    expect(check({ uniqueItems: true }, [1, { a: 1, b: 2 }, { b: 2, a: 1 }])).toEqual([
      ': Expected unique items (items 1 and 2 are equal)',
    ])
    expect(check({ uniqueItems: true }, [1, '1', [1], { a: 1 }])).toEqual([])
  })

  it('enum and const (deep, key order ignored)', () => {
    expect(check({ enum: ['a', 1, null, { x: [1] }] }, { x: [1] })).toEqual([])
    expect(check({ enum: ['a', 1, null] }, 'b')).toEqual([': Expected one of: "a", 1, null'])
    expect(check({ const: { a: 1, b: 2 } }, { b: 2, a: 1 })).toEqual([])
    expect(check({ const: 'x' }, 'y')).toEqual([': Expected "x"'])
    expect(check({ const: { a: 1 } }, { a: 2 })).toEqual([': Expected {"a":1}'])
  })

  it('minLength and maxLength count code points; pattern; format is not enforced', () => {
    expect(check({ maxLength: 2 }, '😀😀')).toEqual([])
    expect(check({ minLength: 3 }, '😀😀')).toEqual([': Expected at least 3 characters'])
    expect(check({ maxLength: 1 }, 'ab')).toEqual([': Expected at most 1 character'])
    expect(check({ pattern: '^[a-z]+$' }, 'abc')).toEqual([])
    expect(check({ pattern: '^[a-z]+$' }, 'ab1')).toEqual([': Expected a string matching /^[a-z]+$/'])
    expect(check({ pattern: 'b' }, 'abc')).toEqual([])
    expect(check({ type: 'string', format: 'email' }, 'not an email')).toEqual([])
    expect(check({ minLength: 5 }, 12)).toEqual([])
  })

  it('numeric bounds and multipleOf', () => {
    const s = { minimum: 1, maximum: 10, exclusiveMinimum: 0, exclusiveMaximum: 10 }
    expect(check(s, 5)).toEqual([])
    expect(check(s, 10)).toEqual([': Expected a number < 10'])
    expect(check(s, 0)).toEqual([': Expected a number >= 1', ': Expected a number > 0'])
    expect(check({ maximum: 3 }, 4)).toEqual([': Expected a number <= 3'])
    expect(check({ minimum: 3, exclusiveMinimum: true }, 3)).toEqual([': Expected a number > 3'])
    expect(check({ multipleOf: 0.1 }, 0.3)).toEqual([])
    expect(check({ multipleOf: 0.01 }, 19.99)).toEqual([])
    expect(check({ multipleOf: 2 }, 7)).toEqual([': Expected a multiple of 2'])
    expect(check({ multipleOf: 1 }, 1e12 + 0.5)).toEqual([': Expected a multiple of 1'])
    // Exact for integer steps, even where dividing would round: 1e20 = 3 * 33333333333333333333 + 1.
    expect(check({ multipleOf: 3 }, 1e20)).toEqual([': Expected a multiple of 3'])
    expect(check({ multipleOf: 3 }, 5e-324)).toEqual([': Expected a multiple of 3'])
    expect(check({ multipleOf: 3 }, 3e20)).toEqual([])
  })

  it('anyOf: one match is enough; otherwise the closest branch or a summary', () => {
    const s = { anyOf: [{ type: 'string' }, { type: 'null' }] }
    expect(check(s, null)).toEqual([])
    expect(check(s, 1)).toEqual([': Expected string or null'])
    const shapes = {
      anyOf: [
        {
          type: 'object',
          properties: { kind: { const: 'a' }, x: { type: 'string' } },
          required: ['kind', 'x'],
        },
        { type: 'array' },
      ],
    }
    expect(check(shapes, { kind: 'a', x: 1 })).toEqual(['x: Expected string'])
    expect(check({ anyOf: [{ minimum: 5 }, { const: 1 }] }, 3)).toEqual([
      ': Value does not match any of the allowed schemas',
    ])
  })

  it('oneOf: exactly one branch must match', () => {
    const s = { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 1 }] }
    expect(check(s, 0)).toEqual([])
    expect(check(s, 1.5)).toEqual([])
    expect(check(s, 2)).toEqual([': Value matches more than one schema in oneOf'])
    expect(check(s, 'x')).toEqual([': Expected integer or number'])
  })

  it('allOf collects every branch; not inverts', () => {
    expect(check({ allOf: [{ minLength: 2 }, { pattern: '^a' }] }, 'b')).toEqual([
      ': Expected at least 2 characters',
      ': Expected a string matching /^a/',
    ])
    expect(check({ not: { type: 'null' } }, null)).toEqual([': Value matches a schema it must not match'])
    expect(check({ not: { type: 'null' } }, 1)).toEqual([])
  })

  it('boolean schemas', () => {
    expect(check({ properties: { a: true, b: false } }, { a: 1 })).toEqual([])
    expect(check({ properties: { a: true, b: false } }, { b: 1 })).toEqual(['b: No value is allowed here'])
  })

  it('$ref to $defs and definitions, recursively', () => {
    const tree = {
      $defs: {
        node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/node' } },
          },
          required: ['name'],
        },
      },
      $ref: '#/$defs/node',
    }
    expect(check(tree, { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] })).toEqual([])
    expect(check(tree, { name: 'a', children: [{ children: [{ name: 1 }] }] })).toEqual([
      'children.0.name: Missing required property',
      'children.0.children.0.name: Expected string',
    ])
    expect(check({ definitions: { 'a/b': { type: 'string' } }, $ref: '#/definitions/a~1b' }, 1)).toEqual([
      ': Expected string',
    ])
    expect(check({ type: 'object', properties: { self: { $ref: '#' } } }, { self: { self: 1 } })).toEqual([
      'self.self: Expected object',
    ])
  })

  it('ignores annotations and unsupported keywords', () => {
    const s = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'T',
      description: 'D',
      examples: [1],
      if: { type: 'string' },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: { minLength: 100 },
      propertyNames: { maxLength: 1 },
      contains: { const: 'never' },
    }
    expect(check(s, 'short')).toEqual([])
    expect(check(s, { long: [] })).toEqual([])
  })
})

describe('fromJsonSchema: invalid schemas throw at creation', () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'unknown type',
      { properties: { name: { type: 'strnig' } } },
      /#\/properties\/name\/type: unknown type "strnig"/,
    ],
    ['type list', { type: ['string', 3] }, /#\/type: unknown type 3/],
    ['properties', { properties: [] }, /#\/properties: expected an object/],
    ['required', { required: 'a' }, /#\/required: expected an array of strings/],
    ['enum', { enum: [] }, /#\/enum: expected a non-empty array/],
    ['minLength', { minLength: -1 }, /#\/minLength: expected a non-negative integer/],
    ['maximum', { maximum: '5' }, /#\/maximum: expected a number/],
    ['multipleOf', { multipleOf: 0 }, /#\/multipleOf: expected a number > 0/],
    ['pattern', { pattern: '(' }, /#\/pattern: invalid regular expression/],
    ['anyOf', { anyOf: [] }, /#\/anyOf: expected a non-empty array of schemas/],
    ['subschema', { items: 'string' }, /#\/items: expected a schema object or boolean/],
    ['uniqueItems', { uniqueItems: 'yes' }, /#\/uniqueItems: expected a boolean/],
    [
      'unresolvable $ref',
      { $ref: '#/$defs/missing' },
      /#\/\$ref: \$ref "#\/\$defs\/missing" does not resolve/,
    ],
    ['remote $ref', { $ref: 'https://example.com/s.json' }, /unsupported \$ref/],
    ['prototype $ref', { $ref: '#/__proto__' }, /does not resolve/],
    [
      '$ref loop',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' },
      /loop/,
    ],
    ['self loop', { anyOf: [{ $ref: '#' }, { type: 'string' }] }, /loop/],
  ]
  it.each(cases)('%s', (_name, schema, message) => {
    expect(() => fromJsonSchema(schema as JsonSchema)).toThrow(TypeError)
    expect(() => fromJsonSchema(schema as JsonSchema)).toThrow(message)
  })

  it('rejects a non-object schema', () => {
    expect(() => fromJsonSchema(null as unknown as JsonSchema)).toThrow(TypeError)
    expect(() => fromJsonSchema(true as unknown as JsonSchema)).toThrow(TypeError)
  })

  it('accepts a recursive $ref that descends into the value', () => {
    expect(() => fromJsonSchema({ type: 'array', items: { $ref: '#' } })).not.toThrow()
  })
})

describe('fromJsonSchema with JSON Schema produced by zod 4', () => {
  it('agrees with zod on valid and invalid values', () => {
    // strictObject: zod's JSON Schema says additionalProperties: false, which only strict objects enforce.
    const schema = z.strictObject({
      name: z.string().min(1).max(20),
      age: z.number().int().min(0).optional(),
      role: z.enum(['admin', 'user']),
      tags: z.array(z.string()).max(3),
      contact: z.union([z.strictObject({ email: z.string() }), z.null()]),
    })
    const validator = fromJsonSchema(z.toJSONSchema(schema) as JsonSchema)['~standard']
    // Our paths for each value ([] = valid); zod reports a failed union at the union's own path.
    const cases: [unknown, string[]][] = [
      [{ name: 'Ann', role: 'admin', tags: [], contact: null }, []],
      [{ name: 'Ann', age: 3, role: 'user', tags: ['a', 'b'], contact: { email: 'x' } }, []],
      [{ name: '', role: 'admin', tags: [], contact: null }, ['name']],
      [{ name: 'Ann', age: 1.5, role: 'admin', tags: [], contact: null }, ['age']],
      [{ name: 'Ann', role: 'root', tags: [], contact: null }, ['role']],
      [{ name: 'Ann', role: 'admin', tags: ['a', 'b', 'c', 'd'], contact: null }, ['tags']],
      [{ name: 'Ann', role: 'admin', tags: [], contact: { email: 1 } }, ['contact.email']],
      [{ name: 'Ann', role: 'admin', tags: [], contact: null, extra: true }, ['extra']],
      [{ role: 'admin', tags: [], contact: null }, ['name']],
      ['not an object', ['']],
    ]
    for (const [value, paths] of cases) {
      const ours = validator.validate(value) as StandardSchemaV1.Result<unknown>
      expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(paths.length === 0)
      expect(ours.issues ? toIssues(ours.issues).map((i) => i.path) : []).toEqual(paths)
    }
  })
})
