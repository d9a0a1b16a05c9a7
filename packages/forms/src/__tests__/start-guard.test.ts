import { type ConfirmRequest, ok, type Toolmark } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { type FormValues, registerForm } from '../index.ts'

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
