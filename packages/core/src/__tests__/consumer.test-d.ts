import { describe, expectTypeOf, it } from 'vitest'
import type {
  BlockedReason,
  CallMeta,
  ConsumerHost,
  ConsumerStatus,
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
      host.observe({
        blocked: (e, meta) => {
          expectTypeOf(e.reason).toEqualTypeOf<BlockedReason>()
          expectTypeOf(meta).toEqualTypeOf<CallMeta | undefined>()
          if (e.reason.code === 'not_allowed') expectTypeOf(e.reason.rule.caller).toEqualTypeOf<string>()
          if (e.reason.code === 'stale') expectTypeOf(e.reason.currentRev).toEqualTypeOf<number>()
        },
      })
      host.status('bridge', { state: 'open', clientId: 'c' })
      expectTypeOf(host.statuses()).toEqualTypeOf<Readonly<Record<string, ConsumerStatus>>>()
      // @ts-expect-error a status needs its state
      host.status('bridge', { clientId: 'c' })
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
