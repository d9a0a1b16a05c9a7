import { describe, expectTypeOf, it } from 'vitest'
import type { ToolDefinition } from '../../types.ts'
import { DEFINITION_FIELDS, type FieldRule } from '../index.ts'

describe('DEFINITION_FIELDS', () => {
  it('has a rule for exactly the fields of ToolDefinition', () => {
    expectTypeOf<keyof typeof DEFINITION_FIELDS>().toEqualTypeOf<keyof ToolDefinition>()
    expectTypeOf(DEFINITION_FIELDS).toExtend<Record<keyof ToolDefinition, FieldRule>>()
  })

  it('does not cover a field added to ToolDefinition until it gets a rule', () => {
    type Grown = ToolDefinition & { added?: string }
    // @ts-expect-error `added` has no rule, so the table is not a rule per field of the grown type
    expectTypeOf(DEFINITION_FIELDS).toExtend<Record<keyof Grown, FieldRule>>()
  })
})
