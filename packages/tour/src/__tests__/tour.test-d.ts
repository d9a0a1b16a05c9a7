import type { Toolmark } from '@toolmark/core'
import { describe, expectTypeOf, it } from 'vitest'
import { createTourRunner, domOverlay, type TourOutcome, type TourRunner } from '../index.ts'

declare const tm: Toolmark

describe('tour types', () => {
  it('createTourRunner returns a runner whose start resolves to an outcome', () => {
    expectTypeOf(createTourRunner(tm, { tours: [], overlay: domOverlay() })).toEqualTypeOf<TourRunner>()
    expectTypeOf<TourRunner['start']>().returns.toEqualTypeOf<Promise<TourOutcome>>()
  })
})
