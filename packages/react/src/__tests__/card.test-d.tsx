import { describe, expectTypeOf, it } from 'vitest'
import {
  type ConfirmationCardOptions,
  type ConfirmationCardProps,
  type ConfirmationCardState,
  type ConfirmationCardView,
  useConfirmationCard,
} from '../index.ts'

describe('confirmation card surface', () => {
  it('useConfirmationCard takes keyboard options and returns the view plus a ref callback', () => {
    expectTypeOf(useConfirmationCard).parameter(1).toEqualTypeOf<ConfirmationCardOptions | undefined>()
    expectTypeOf(useConfirmationCard).returns.toEqualTypeOf<ConfirmationCardState>()
    expectTypeOf<ConfirmationCardState>().toExtend<ConfirmationCardView>()
    expectTypeOf<ConfirmationCardState['cardRef']>().parameter(0).toEqualTypeOf<HTMLElement | null>()
  })

  it('the shipped card takes an optional autoFocus flag', () => {
    expectTypeOf<ConfirmationCardProps['autoFocus']>().toEqualTypeOf<boolean | undefined>()
  })
})
