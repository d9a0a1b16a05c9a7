/**
 * Policy: the hint classes each caller may see and call.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('policy', () => {
  it('a caller whose policy excludes a hint class gets not_allowed; human may call everything', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark({ policy: { mcp: ['readOnly'], inapp: [] } })
    tm.register(tool('del', { hints: { destructive: true }, run }))
    tm.register(tool('look', { run }))
    expect(await tm.call('del', {}, { caller: 'mcp' })).toEqual({
      status: 'refused',
      code: 'not_allowed',
      message: expect.any(String),
    })
    expect(await tm.call('look', {}, { caller: 'inapp' })).toMatchObject({ code: 'not_allowed' })
    expect(await tm.call('look', {}, { caller: 'mcp' })).toEqual(ok())
    expect(await tm.call('del', {}, { caller: 'human' })).toEqual(ok())
    expect(run).toHaveBeenCalledTimes(2)
  })

  it('an unknown caller is refused and nothing runs', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    tm.register(tool('x', { run }))
    expect(await tm.call('x', {}, { caller: 'robot' as never })).toMatchObject({
      status: 'refused',
      code: 'not_allowed',
    })
    expect(run).not.toHaveBeenCalled()
  })
})
