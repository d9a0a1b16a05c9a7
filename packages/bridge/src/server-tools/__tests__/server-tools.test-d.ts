import { describe, expectTypeOf, it } from 'vitest'
import { type ServerToolFailure, type ServerTools, serverTools } from '../index.ts'

describe('server tools types', () => {
  it('serverTools returns a handle whose load lists the tools and the skipped definitions', () => {
    expectTypeOf(serverTools).returns.toEqualTypeOf<ServerTools>()
    expectTypeOf<Awaited<ReturnType<ServerTools['load']>>>().toEqualTypeOf<{
      tools: string[]
      skipped: ServerToolFailure[]
    }>()
  })
})
