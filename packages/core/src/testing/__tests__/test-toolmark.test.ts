/**
 * `createTestToolmark`: a live development registry that approves by default.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDef, OPERATOR } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { ok } from '../../tool/result.ts'
import type { ToolContext } from '../../types.ts'
import { createTestToolmark, rejectAll } from '../index.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('createTestToolmark', () => {
  it('keeps the production modes and approves inline requests by default', async () => {
    const run = vi.fn((input: unknown, ctx: ToolContext) => ok({ input, caller: ctx.caller }))
    const tm = createTestToolmark()
    tm.register(createDef(run as never))
    expect((await tm.call('create', { name: 'A' }, { caller: 'inapp' })).status).toBe('needs_confirmation')
    for (const caller of ['webmcp', 'mcp', 'tour', 'test'] as const) {
      expect(await tm.call('create', { name: 'A' }, { caller })).toEqual(ok({ input: { name: 'A' }, caller }))
    }
    expect(tm.pendingConfirmations()).toHaveLength(1)
  })

  it('is a development registry by default (misconfiguration throws); a rejecting handler can be installed', async () => {
    const tm = createTestToolmark({ confirm: rejectAll })
    expect(tm.dev).toBe(true)
    expect(() => tm.register({ name: 'a b', description: 'd', run: () => ok() })).toThrow()
    tm.register(createDef())
    expect(await tm.call('create', { name: 'A' }, { caller: 'test' })).toEqual(OPERATOR)
  })
})
