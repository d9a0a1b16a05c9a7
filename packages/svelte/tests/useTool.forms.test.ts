import { screen } from '@testing-library/svelte'
import { type FormValues, formTools, type WizardSource, wizardTools } from '@toolmark/core/forms'
import { describe, expect, it } from 'vitest'
import FormTools from './fixtures/FormTools.svelte'
import { flush, setup } from './utils.ts'

const FIELDS = { type: 'object', properties: { email: { type: 'string' } } } as const

/** A plain form source holding its values (and the wizard's step). */
function source(): WizardSource<FormValues> {
  let values: FormValues = { email: '' }
  let step = 'contact'
  return {
    getValues: () => ({ ...values }),
    setValues: (next) => {
      values = { ...values, ...next }
    },
    submit: () => undefined,
    getStep: () => step,
    setStep: (id) => {
      step = id
    },
  }
}

describe('useTool with form and wizard tools', () => {
  it("shows a form submit's field changes on its card", async () => {
    const { tm, mount } = setup()
    const { fill, submit } = formTools({
      name: 'signup',
      description: 'create an account',
      fields: FIELDS,
      source: source(),
    })
    mount(FormTools, { name: 'signup', tools: [fill, submit] })
    await flush()
    await tm.call('signup.fill', { email: 'ada@example.com' }, { caller: 'inapp' })
    const asked = await tm.call('signup.submit', {}, { caller: 'inapp' })
    await flush()
    expect(asked).toMatchObject({
      status: 'needs_confirmation',
      changes: [{ path: 'email', after: 'ada@example.com' }],
    })
    expect(tm.pendingConfirmations()[0]?.changes).toEqual([{ path: 'email', after: 'ada@example.com' }])
    expect(screen.getByTestId('confirmation-card').textContent).toContain('ada@example.com')
  })

  it("publishes a wizard's tools with mode 'stepwise'", async () => {
    const { tm, mount } = setup()
    const tools = wizardTools({
      name: 'trip',
      description: 'book a trip',
      fields: FIELDS,
      steps: [{ id: 'contact', fields: ['email'] }],
      source: source(),
    })
    mount(FormTools, { name: 'trip', tools })
    await flush()
    expect(tm.manifest().tools.map((t) => [t.name, t.mode])).toEqual([
      ['trip.back', 'stepwise'],
      ['trip.fill', 'stepwise'],
      ['trip.next', 'stepwise'],
      ['trip.submit', 'stepwise'],
    ])
  })
})
