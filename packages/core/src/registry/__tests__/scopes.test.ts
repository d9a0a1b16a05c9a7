/**
 * Scopes: nested names, `when` hiding a scope's tools (re-evaluated at each notification) and
 * disposal.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { codeOf, tick, tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('scopes and when', () => {
  it('when hides a scope while false; the manifest, describe and calls agree; flipping back shows it', async () => {
    let open = false
    const tm = createTestToolmark()
    const s = tm.scope('wizard', { when: () => open })
    s.register(tool('next'))
    await tick()
    expect(tm.manifest().tools).toEqual([])
    expect(tm.describe('wizard.next')).toBeUndefined()
    expect(tm.info('wizard.next')?.visible).toBe(false)
    expect(await tm.call('wizard.next', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool' })
    open = true
    const seen: number[] = []
    tm.subscribe((rev) => seen.push(rev))
    s.setWhen(() => open)
    await tick()
    expect(seen).toEqual([tm.rev])
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['wizard.next'])
    expect(await tm.call('wizard.next', {}, { caller: 'test' })).toEqual(ok())
  })

  it('nested scopes: disposing the parent removes every nested tool', () => {
    const tm = createTestToolmark()
    const parent = tm.scope('p')
    const child = parent.scope('c')
    child.register(tool('x'))
    parent.register(tool('y'))
    parent.dispose()
    expect(child.disposed).toBe(true)
    expect(tm.manifest().tools).toEqual([])
    expect(codeOf(() => child.register(tool('z')))).toBe('scope_disposed')
  })
})

afterEach(() => environment.setIsServer(undefined))

describe('"`when` hides a scope\'s tools while false (re-evaluated on `subscribe` notifications)"; every registration change bumps rev', () => {
  it('setWhen(false) on a scope created without `when` hides its tools, bumps rev and notifies', async () => {
    const tm = createTestToolmark()
    const s = tm.scope('page')
    s.register({ name: 'open', description: 'd', hints: { readOnly: true }, run: () => ok() })
    await tick()
    const seenRev = tm.rev
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['page.open']) // caches the manifest at this rev
    const notified: number[] = []
    tm.subscribe((rev) => notified.push(rev))
    s.setWhen(false)
    await tick()
    expect(tm.manifest().tools).toEqual([])
    expect(tm.rev).toBeGreaterThan(seenRev)
    expect(notified).toEqual([tm.rev])
    // The tool disappeared since the caller's rev → stale, not unknown_tool.
    expect(await tm.call('page.open', {}, { caller: 'test', rev: seenRev })).toMatchObject({
      code: 'stale',
      rev: tm.rev,
    })
  })
})
