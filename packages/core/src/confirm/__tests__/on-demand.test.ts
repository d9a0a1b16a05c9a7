import { beforeEach, describe, expect, it, vi } from 'vitest'
import type * as Core from '../../index.ts'
import type { ConfirmRequest } from '../../types.ts'

/*
 * The call pipeline, confirmations included, loads on demand (call/lazy.ts). Each test starts from
 * fresh modules, so nothing has loaded it yet (the testing entry, which bundles it, is not imported
 * here).
 */
let core: typeof Core
beforeEach(async () => {
  vi.doUnmock('../../call/chunk.ts')
  vi.resetModules()
  core = await import('../../index.ts')
})

const tool = (run = vi.fn(() => core.ok('done'))) => ({
  name: 'transfer',
  description: 'Transfer money',
  hints: { consequential: true },
  run,
})

describe('confirmations before their module has loaded', () => {
  it('a call made right after registration waits for the module, then asks inline and runs', async () => {
    const asked: ConfirmRequest[] = []
    const tm = core.createToolmark({
      live: true,
      confirm: (req) => {
        asked.push(req)
        return { approved: true }
      },
    })
    const run = vi.fn(() => core.ok('done'))
    tm.register(tool(run))
    expect(await tm.call('transfer', {}, { caller: 'webmcp' })).toEqual(core.ok('done'))
    expect(asked).toHaveLength(1)
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('a deferred call answers needs_confirmation once the module is here, and can be approved', async () => {
    const tm = core.createToolmark({ live: true })
    expect(await tm.confirmPending('nope', { approved: true })).toEqual(core.refused('confirmation_expired'))
    tm.register(tool())
    const result = await tm.call('transfer', {}, { caller: 'inapp' })
    expect(result.status).toBe('needs_confirmation')
    expect(tm.pendingConfirmations()).toHaveLength(1)
    const { confirmId } = result as { confirmId: string }
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual(core.ok('done'))
  })

  it('a tool disposed while the module loads asks nobody: the call answers as if it had gone', async () => {
    const confirm = vi.fn(() => ({ approved: true }) as const)
    const tm = core.createToolmark({ live: true, confirm })
    const handle = tm.register(tool())
    const gone = tm.call('transfer', {}, { caller: 'webmcp' })
    handle.dispose()
    expect(await gone).toMatchObject({ status: 'refused', code: 'unknown_tool' })
    expect(confirm).not.toHaveBeenCalled()
  })

  it('a call aborted while the module loads asks nobody: cancelled signal', async () => {
    const confirm = vi.fn(() => ({ approved: true }) as const)
    const tm = core.createToolmark({ live: true, confirm })
    tm.register(tool())
    const ac = new AbortController()
    const aborted = tm.call('transfer', {}, { caller: 'webmcp', signal: ac.signal })
    ac.abort()
    expect(await aborted).toEqual(core.cancelled('signal'))
    expect(confirm).not.toHaveBeenCalled()
  })
})

describe('calls before the pipeline has loaded', () => {
  const plain = (name: string, run: () => ReturnType<typeof core.ok> | undefined) => ({
    name,
    description: name,
    run,
  })

  it('calls made right after registration wait for it, then run in the order they were made', async () => {
    const tm = core.createToolmark({ live: true })
    const order: string[] = []
    tm.register(plain('a', () => void order.push('a')))
    tm.register(plain('b', () => void order.push('b')))
    const calls = [tm.call('a', {}, { caller: 'webmcp' }), tm.call('b', {}, { caller: 'webmcp' })]
    const third = Promise.resolve().then(() => tm.call('a', {}, { caller: 'webmcp' }))
    expect(order).toEqual([])
    const results = await Promise.all([...calls, third])
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok'])
    expect(order).toEqual(['a', 'b', 'a'])
  })

  it('once it is here, a call with a synchronous run runs before tm.call returns', async () => {
    const tm = core.createToolmark({ live: true })
    const run = vi.fn(() => core.ok(1))
    tm.register(plain('a', run))
    await tm.call('a', {}, { caller: 'webmcp' })
    const next = tm.call('a', {}, { caller: 'webmcp' })
    expect(run).toHaveBeenCalledTimes(2)
    expect(await next).toEqual(core.ok(1))
  })

  it('a load that fails answers "Tool failed" with tool_threw, and the next call loads it again', async () => {
    vi.doMock('../../call/chunk.ts', () => {
      throw new Error('offline')
    })
    vi.resetModules()
    core = await import('../../index.ts')
    const tm = core.createToolmark({ live: true })
    const threw: unknown[] = []
    tm.events.on('error', (e) => threw.push(e.code))
    const run = vi.fn(() => core.ok(1))
    tm.register(plain('a', run))
    expect(await tm.call('a', {}, { caller: 'webmcp' })).toEqual(core.error('Tool failed'))
    expect(threw).toEqual(['tool_threw'])
    expect(run).not.toHaveBeenCalled()
    vi.doUnmock('../../call/chunk.ts')
    expect(await tm.call('a', {}, { caller: 'webmcp' })).toEqual(core.ok(1))
  })

  it('a load that never ends is bounded by the call deadline: cancelled, the tool never runs', async () => {
    vi.doMock('../../call/chunk.ts', () => new Promise(() => {}))
    vi.resetModules()
    core = await import('../../index.ts')
    const tm = core.createToolmark({ live: true, callTimeoutMs: 30 })
    const run = vi.fn(() => core.ok(1))
    tm.register(plain('a', run))
    expect(await tm.call('a', {}, { caller: 'webmcp' })).toEqual(core.cancelled('signal'))
    expect(run).not.toHaveBeenCalled()
    expect(await tm.undo('nope')).toEqual(core.refused('undo_unavailable'))
  })
})
