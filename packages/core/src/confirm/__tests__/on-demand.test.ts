import { beforeEach, describe, expect, it, vi } from 'vitest'
import type * as Core from '../../index.ts'
import type { ConfirmRequest } from '../../types.ts'

/*
 * Confirmations load on demand (call/lazy.ts). Each test starts from fresh modules, so nothing has
 * loaded the confirmation module yet (the testing entry, which bundles it, is not imported here).
 */
let core: typeof Core
beforeEach(async () => {
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
