/**
 * Revisions: every registration change bumps `rev`; a call naming a tool gone since the caller's
 * revision is answered `stale`, not `unknown_tool`.
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

describe("revisions: a tool gone since the caller's rev is stale", () => {
  it('starts at 0 and bumps on register, dispose, signal abort and scope disposal only', async () => {
    const tm = createTestToolmark({ dev: false })
    expect(tm.rev).toBe(0)
    expect(tm.manifest()).toEqual({ rev: 0, tools: [] })
    const a = tm.register(tool('a'))
    expect(tm.rev).toBe(1)
    const ac = new AbortController()
    tm.register(tool('b'), { signal: ac.signal })
    expect(tm.rev).toBe(2)
    ac.abort()
    expect(tm.rev).toBe(3)
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['a'])
    tm.register(tool('a')) // duplicate in production: rejected, no bump
    expect(tm.rev).toBe(3)
    a.dispose()
    a.dispose()
    expect(tm.rev).toBe(4)
    const s = tm.scope('s')
    s.register(tool('x'))
    expect(tm.rev).toBe(5)
    s.dispose()
    expect(tm.rev).toBeGreaterThan(5)
    expect(tm.manifest().tools).toEqual([])
  })

  it('an already aborted signal registers nothing', () => {
    const tm = createTestToolmark()
    tm.register(tool('a'), { signal: AbortSignal.abort() })
    expect(tm.rev).toBe(0)
    expect(tm.manifest().tools).toEqual([])
  })

  it('stale carries the current rev; unknown_tool carries it; other refusals never do', async () => {
    const tm = createTestToolmark({ dev: false, policy: { webmcp: ['readOnly'] } })
    const h = tm.register(tool('gone'))
    tm.register(tool('write', { hints: { consequential: true } }))
    const seen = tm.rev
    h.dispose()
    const stale = await tm.call('gone', {}, { caller: 'test', rev: seen })
    expect(stale).toEqual({ status: 'refused', code: 'stale', message: expect.any(String), rev: tm.rev })
    const unknown = await tm.call('never-was', {}, { caller: 'test', rev: seen })
    expect(unknown).toEqual({
      status: 'refused',
      code: 'unknown_tool',
      message: expect.any(String),
      rev: tm.rev,
    })
    const noRev = await tm.call('gone', {}, { caller: 'test' })
    expect(noRev).toEqual({
      status: 'refused',
      code: 'unknown_tool',
      message: expect.any(String),
      rev: tm.rev,
    })
    const notAllowed = await tm.call('write', {}, { caller: 'webmcp', rev: seen })
    expect(notAllowed).toEqual({ status: 'refused', code: 'not_allowed', message: expect.any(String) })
    expect(await tm.undo('nothing')).toEqual({
      status: 'refused',
      code: 'undo_unavailable',
      message: expect.any(String),
    })
  })

  it('a rev equal to or newer than the current one never yields stale', async () => {
    const tm = createTestToolmark()
    tm.register(tool('gone')).dispose()
    expect(await tm.call('gone', {}, { caller: 'test', rev: tm.rev })).toMatchObject({ code: 'unknown_tool' })
    expect(await tm.call('gone', {}, { caller: 'test', rev: tm.rev + 100 })).toMatchObject({
      code: 'unknown_tool',
    })
    tm.register(tool('here'))
    expect(await tm.call('here', {}, { caller: 'test', rev: tm.rev + 100 })).toEqual(ok())
  })

  it('a tool re-registered after it went away is callable with an old rev', async () => {
    const tm = createTestToolmark()
    tm.register(tool('t')).dispose()
    const seen = tm.rev
    tm.register(tool('t', { run: () => ok('back') }))
    expect(await tm.call('t', {}, { caller: 'test', rev: seen - 1 })).toEqual(ok('back'))
  })
})
