import { describe, expectTypeOf, it } from 'vitest'
import type { ConfirmationCardData, ToolDefinition } from '../../types.ts'
import { type AttachCardOptions, attachCard, type ConfirmationCardView, cardView } from '../index.ts'

describe('card view surface', () => {
  it('a tool may declare undoable; card data carries it only as true', () => {
    expectTypeOf<ToolDefinition['undoable']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<ConfirmationCardData['undoable']>().toEqualTypeOf<true | undefined>()
  })

  it('the view always says whether the tool is undoable and how to wire the card for assistive tech', () => {
    expectTypeOf(cardView).returns.toEqualTypeOf<ConfirmationCardView>()
    expectTypeOf<ConfirmationCardView['undoable']>().toEqualTypeOf<boolean>()
    expectTypeOf<ConfirmationCardView['role']>().toEqualTypeOf<'alertdialog'>()
    expectTypeOf<ConfirmationCardView['titleId']>().toEqualTypeOf<string>()
  })

  it('attachCard takes the card element and returns the detach function', () => {
    expectTypeOf(attachCard).parameters.toEqualTypeOf<[HTMLElement, AttachCardOptions]>()
    expectTypeOf(attachCard).returns.toEqualTypeOf<() => void>()
    expectTypeOf<AttachCardOptions['autoFocus']>().toEqualTypeOf<boolean | undefined>()
  })
})
