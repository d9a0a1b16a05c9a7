import type * as OtelApi from '@opentelemetry/api'
import type { ToolmarkConsumer } from '@toolmark/core'
import { describe, expectTypeOf, it } from 'vitest'
import { type OtelOptions, otel } from '../index.ts'

describe('otel consumer factory', () => {
  it('otel() needs the API passed in', () => {
    expectTypeOf(otel).parameter(0).toEqualTypeOf<OtelOptions>()
    const api = {} as typeof OtelApi
    expectTypeOf(otel({ api, recordInputs: true })).toEqualTypeOf<ToolmarkConsumer>()
    // @ts-expect-error the API is required
    otel({})
  })
})
