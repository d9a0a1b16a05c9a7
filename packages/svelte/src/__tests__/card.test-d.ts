import { describe, expectTypeOf, it } from 'vitest'
import { type ConfirmationCardOptions, type ConfirmationCardView, useConfirmationCard } from '../index.ts'

describe('confirmation card surface', () => {
  it('useConfirmationCard takes keyboard options and returns the view plus an attachment', () => {
    expectTypeOf(useConfirmationCard).parameter(1).toEqualTypeOf<ConfirmationCardOptions | undefined>()
    type Card = ReturnType<typeof useConfirmationCard>
    expectTypeOf<Card['current']>().toEqualTypeOf<ConfirmationCardView>()
    expectTypeOf<Card['attach']>().toEqualTypeOf<(element: HTMLElement) => () => void>()
  })
})
