import { describe, expectTypeOf, it } from 'vitest'
import type { ComputedRef, Ref } from 'vue'
import { type ConfirmationCardOptions, type ConfirmationCardView, useConfirmationCard } from '../index.ts'

describe('confirmation card surface', () => {
  it('useConfirmationCard takes the card element and keyboard options, and returns the computed view', () => {
    expectTypeOf(useConfirmationCard).parameter(1).toEqualTypeOf<ConfirmationCardOptions | undefined>()
    expectTypeOf(useConfirmationCard).returns.toEqualTypeOf<ComputedRef<ConfirmationCardView>>()
    expectTypeOf<Ref<HTMLElement | null>>().toExtend<NonNullable<ConfirmationCardOptions['element']>>()
    expectTypeOf<ConfirmationCardOptions['autoFocus']>().toEqualTypeOf<boolean | undefined>()
  })
})
