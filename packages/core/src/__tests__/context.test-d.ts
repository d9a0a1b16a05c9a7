import { describe, expectTypeOf, it } from 'vitest'
import type { ConsumerHost, ContextEntry, ContextHandle, ContextSnapshot, Scope } from '../index.ts'
import { createToolmark } from '../index.ts'

describe('readable context types', () => {
  it('tm.context and scope.context return a handle; readContext a snapshot', () => {
    const tm = createToolmark()
    const handle = tm.context({ name: 'x', description: 'X', value: { a: 1 }, sensitivePaths: ['a'] })
    expectTypeOf(handle).toEqualTypeOf<ContextHandle>()
    expectTypeOf(handle.set).parameter(0).toBeUnknown()
    expectTypeOf<Scope['context']>().returns.toEqualTypeOf<ContextHandle>()
    expectTypeOf(tm.readContext({ caller: 'mcp' })).toEqualTypeOf<ContextSnapshot>()
    expectTypeOf<ContextSnapshot['entries']>().toEqualTypeOf<readonly ContextEntry[]>()
    // @ts-expect-error: a description is required
    tm.context({ name: 'x', value: 1 })
    // @ts-expect-error: a caller is one of the known callers
    tm.readContext({ caller: 'robot' })
  })

  it('consumers watch the context of one caller', () => {
    expectTypeOf<ConsumerHost['watchContext']>()
      .parameter(1)
      .toEqualTypeOf<(context: ContextSnapshot) => void>()
  })
})
