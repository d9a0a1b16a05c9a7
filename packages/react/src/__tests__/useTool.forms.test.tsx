import { act, screen } from '@testing-library/react'
import { type FormValues, formTools, type WizardSource, wizardTools } from '@toolmark/core/forms'
import { expect, it } from 'vitest'
import {
  ConfirmationCard,
  type ToolDefinition,
  ToolScope,
  usePendingConfirmations,
  useTool,
} from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

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

function Tool({ definition }: { definition: ToolDefinition }) {
  useTool(definition)
  return null
}

function Cards() {
  const { items } = usePendingConfirmations()
  return items.map((item) => <ConfirmationCard key={item.confirmId} confirmation={item} />)
}

describeEachReactMode('useTool with form and wizard tools', ({ render }) => {
  it("shows a form submit's field changes on its card", async () => {
    const { tm, wrap } = setup()
    const { fill, submit } = formTools({
      name: 'signup',
      description: 'create an account',
      fields: FIELDS,
      source: source(),
    })
    render(
      wrap(
        <>
          <ToolScope name="signup">
            <Tool definition={fill as ToolDefinition} />
            <Tool definition={submit as ToolDefinition} />
          </ToolScope>
          <Cards />
        </>,
      ),
    )
    await flush()
    await act(() => tm.call('signup.fill', { email: 'ada@example.com' }, { caller: 'inapp' }))
    const asked = await act(() => tm.call('signup.submit', {}, { caller: 'inapp' }))
    expect(asked).toMatchObject({
      status: 'needs_confirmation',
      changes: [{ path: 'email', after: 'ada@example.com' }],
    })
    expect(tm.pendingConfirmations()[0]?.changes).toEqual([{ path: 'email', after: 'ada@example.com' }])
    expect(screen.getByTestId('confirmation-card').textContent).toContain('ada@example.com')
  })

  it("publishes a wizard's tools with mode 'stepwise'", async () => {
    const { tm, wrap } = setup()
    const tools = wizardTools({
      name: 'trip',
      description: 'book a trip',
      fields: FIELDS,
      steps: [{ id: 'contact', fields: ['email'] }],
      source: source(),
    })
    render(
      wrap(
        <ToolScope name="trip">
          {tools.map((tool) => (
            <Tool key={tool.name} definition={tool} />
          ))}
        </ToolScope>,
      ),
    )
    await flush()
    expect(tm.manifest().tools.map((t) => [t.name, t.mode])).toEqual([
      ['trip.back', 'stepwise'],
      ['trip.fill', 'stepwise'],
      ['trip.next', 'stepwise'],
      ['trip.submit', 'stepwise'],
    ])
  })
})
