import { describe, expectTypeOf, it } from 'vitest'
import type {
  CallMeta,
  ConsumerHost,
  Manifest,
  ToolManifest,
  Toolmark,
  ToolmarkConsumer,
  ToolmarkEvents,
  ToolResult,
} from '../index.ts'
import { createToolmark } from '../index.ts'

describe('the consumer API', () => {
  it('hands tm.use consumers a typed host that is also the registry', () => {
    createToolmark().use((host) => {
      expectTypeOf(host).toEqualTypeOf<ConsumerHost>()
      expectTypeOf(host).toMatchTypeOf<Toolmark>()
      expectTypeOf(host.run('x', {}, { caller: 'webmcp', meta: { traceparent: 't' } })).toEqualTypeOf<
        Promise<ToolResult>
      >()
      host.watch({ caller: 'mcp', detail: 'full' }, (m) =>
        expectTypeOf(m).toEqualTypeOf<Manifest<ToolManifest>>(),
      )
      host.watch({ caller: 'mcp' }, (m) => expectTypeOf(m).toEqualTypeOf<Manifest>())
      host.observe({
        result: (e, meta) => {
          expectTypeOf(e).toEqualTypeOf<ToolmarkEvents['result']>()
          expectTypeOf(meta).toEqualTypeOf<CallMeta | undefined>()
        },
      })
      // @ts-expect-error only error-event codes can be reported
      host.report('not_a_code', 'm')
      return undefined
    })
  })

  it('keeps consumers written against the plain registry assignable', () => {
    const old = (tm: Toolmark): (() => void) => tm.subscribe(() => {})
    expectTypeOf(old).toMatchTypeOf<ToolmarkConsumer>()
  })
})
