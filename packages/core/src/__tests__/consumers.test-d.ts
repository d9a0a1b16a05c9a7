import { describe, expectTypeOf, it } from 'vitest'
import type { ToolmarkConsumer } from '../index.ts'
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
})
