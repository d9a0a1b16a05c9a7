import type * as OtelApi from '@opentelemetry/api'
import { describe, expectTypeOf, it } from 'vitest'
import type { ToolmarkConsumer } from '../index.ts'
import { type OtelOptions, otel } from '../otel/index.ts'
import { type ModelContextLike, type WebMcpOptions, webmcp } from '../webmcp/index.ts'

describe('consumer factories', () => {
  it('webmcp() takes an optional model context, exposedTo and debugging', () => {
    expectTypeOf(webmcp()).toEqualTypeOf<ToolmarkConsumer>()
    expectTypeOf<WebMcpOptions['debugging']>().toEqualTypeOf<
      boolean | ((tool: import('../types.ts').ToolManifest) => boolean) | undefined
    >()
    const polyfill: ModelContextLike = { registerTool: () => ({ unregister() {} }) }
    webmcp({ modelContext: polyfill, exposedTo: ['https://agent.example'] })
  })

  it('otel() needs the API passed in', () => {
    expectTypeOf(otel).parameter(0).toEqualTypeOf<OtelOptions>()
    const api = {} as typeof OtelApi
    expectTypeOf(otel({ api, recordInputs: true })).toEqualTypeOf<ToolmarkConsumer>()
    // @ts-expect-error the API is required
    otel({})
  })
})
