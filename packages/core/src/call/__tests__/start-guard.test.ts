import { describe, expect, it } from 'vitest'
import { type FormValues, registerForm } from '../../forms/index.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ConfirmRequest, Toolmark, ToolResult } from '../../types.ts'

/** A promise and its resolver. */
function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void
  const promise = new Promise<T>((r) => {
    open = r
  })
  return { promise, open }
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

/**
 * A payment form whose submit waits on `hold` while it runs, so a second submit (and a fill) queue
 * behind it in the form's scope.
 */
function payments(tm: Toolmark) {
  const values: FormValues = { payee: '', amount: '' }
  const submitted: FormValues[] = []
  let hold: Promise<void> | undefined
  registerForm(tm, {
    name: 'pay',
    title: 'Payment',
    description: 'pay someone',
    fields: { type: 'object', properties: { payee: { type: 'string' }, amount: { type: 'string' } } },
    source: {
      getValues: () => ({ ...values }),
      setValues: (patch) => void Object.assign(values, patch),
      async submit(v) {
        submitted.push(v)
        await hold
        return ok()
      },
    },
  })
  return {
    values,
    submitted,
    holdNext(): () => void {
      const g = gate()
      hold = g.promise
      return () => g.open()
    },
  }
}

describe('an approved form submit starts only with the values its card showed', () => {
  it('deferred: a fill queued ahead of the approved run changes the form → refused stale, nothing sent', async () => {
    const tm = createTestToolmark()
    const form = payments(tm)
    await tm.call('pay.fill', { payee: 'Ada', amount: '10' }, { caller: 'inapp' })
    // A first submit is approved and runs (held), so the form's queue is busy.
    const first = (await tm.call('pay.submit', {}, { caller: 'inapp' })) as { confirmId: string }
    const release = form.holdNext()
    const firstDone = tm.confirmPending(first.confirmId, { approved: true })
    await tick()
    // The second card shows the same values; a fill queues behind the running submit.
    const second = (await tm.call('pay.submit', {}, { caller: 'inapp' })) as { confirmId: string }
    const fill = tm.call('pay.fill', { payee: 'Mallory', amount: '9999' }, { caller: 'inapp' })
    const secondDone = tm.confirmPending(second.confirmId, { approved: true })
    release()
    expect(await firstDone).toEqual({ status: 'ok' })
    expect((await fill).status).toBe('ok')
    expect(await secondDone).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    expect(form.submitted).toEqual([{ payee: 'Ada', amount: '10' }])
    // Used up: approving again is expired.
    expect((await tm.confirmPending(second.confirmId, { approved: true })).status).toBe('refused')
  })

  it('inline: the same race is refused stale at the moment the run starts', async () => {
    const asked: ConfirmRequest[] = []
    const answers: ((approved: boolean) => void)[] = []
    const tm = createTestToolmark({
      confirm: (request) => {
        asked.push(request)
        return new Promise((resolve) => answers.push((approved) => resolve({ approved })))
      },
    })
    const form = payments(tm)
    await tm.call('pay.fill', { payee: 'Ada', amount: '10' }, { caller: 'test' })
    const release = form.holdNext()
    const first = tm.call('pay.submit', {}, { caller: 'test' })
    await tick()
    answers[0]?.(true)
    await tick()
    const second = tm.call('pay.submit', {}, { caller: 'test' })
    await tick()
    const fill = tm.call('pay.fill', { payee: 'Mallory' }, { caller: 'test' })
    answers[1]?.(true)
    await tick()
    release()
    expect(await first).toEqual({ status: 'ok' })
    expect((await fill).status).toBe('ok')
    expect(await second).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    expect(form.submitted).toEqual([{ payee: 'Ada', amount: '10' }])
    expect(asked).toHaveLength(2)
  })
})

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
