import { describe, expect, it } from 'vitest'
import { createTestToolmark } from '../../testing/index.ts'
import type { ToolResult } from '../../types.ts'

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

describe('a tool hidden by its scope’s `when` before its run starts', () => {
  /** One tool in a scope shown while `shown.value`, whose runs hold until released. */
  function hiddenSetup(options: Parameters<typeof createTestToolmark>[0] = {}) {
    const tm = createTestToolmark(options)
    const shown = { value: true }
    const scope = tm.scope('board', { when: () => shown.value })
    const runs: string[] = []
    const holds: (() => void)[] = []
    scope.register({
      name: 'move',
      description: 'move a card',
      hints: { readOnly: true },
      run: (input: unknown) => {
        runs.push((input as { id: string }).id)
        return new Promise<undefined>((r) => holds.push(() => r(undefined)))
      },
    })
    scope.register({
      name: 'archive',
      description: 'archive the board',
      hints: { consequential: true },
      run: () => void runs.push('archive'),
    })
    const hide = (): void => {
      shown.value = false
      scope.setWhen(() => shown.value)
    }
    return { tm, runs, holds, hide, show: () => scope.setWhen(() => (shown.value = true)) }
  }

  it('a queued call answers like one arriving after the hiding: unknown_tool, or stale for an older rev', async () => {
    const { tm, runs, holds, hide } = hiddenSetup()
    const rev = tm.rev
    const first = tm.call('board.move', { id: 'a' }, { caller: 'inapp' })
    await tick()
    const queued = tm.call('board.move', { id: 'b' }, { caller: 'inapp' })
    const queuedWithRev = tm.call('board.move', { id: 'c' }, { caller: 'inapp', rev })
    await tick()
    hide()
    holds[0]?.()
    expect(await first).toEqual({ status: 'ok' })
    const after = tm.rev
    expect(await queued).toEqual({
      status: 'refused',
      code: 'unknown_tool',
      message: expect.any(String),
      rev: after,
    })
    expect(await queuedWithRev).toMatchObject({ status: 'refused', code: 'stale', rev: after })
    expect(runs).toEqual(['a'])
    // Exactly what a call arriving now gets.
    expect(await tm.call('board.move', { id: 'd' }, { caller: 'inapp' })).toEqual(await queued)
  })

  it('a deferred approval of a hidden tool is refused stale "Tool changed…" and used up', async () => {
    const { tm, runs, hide, show } = hiddenSetup()
    const asked = (await tm.call('board.archive', {}, { caller: 'inapp' })) as { confirmId: string }
    hide()
    const stale: ToolResult = await tm.confirmPending(asked.confirmId, { approved: true })
    expect(stale).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    show()
    expect((await tm.confirmPending(asked.confirmId, { approved: true })).status).toBe('refused')
    expect(runs).toEqual([])
  })

  it('an approval whose run waits in the queue while the scope is hidden is refused stale', async () => {
    const { tm, runs, holds, hide } = hiddenSetup()
    const busy = tm.call('board.move', { id: 'a' }, { caller: 'inapp' })
    await tick()
    const asked = (await tm.call('board.archive', {}, { caller: 'inapp' })) as { confirmId: string }
    const approved = tm.confirmPending(asked.confirmId, { approved: true })
    await tick()
    hide()
    holds[0]?.()
    await busy
    expect(await approved).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(runs).toEqual(['a'])
  })

  it('an inline confirmation answered after the hiding is refused stale', async () => {
    let answer: ((approved: boolean) => void) | undefined
    const { tm, runs, hide } = hiddenSetup({
      confirm: () => new Promise((resolve) => (answer = (approved) => resolve({ approved }))),
    })
    const call = tm.call('board.archive', {}, { caller: 'test' })
    await tick()
    hide()
    answer?.(true)
    expect(await call).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Tool changed since confirmation was requested',
    })
    expect(runs).toEqual([])
  })
})
