import { act, screen } from '@testing-library/react'
import { formTools, wizardTools } from '@toolmark/forms'
import { expect, it } from 'vitest'
import {
  FILLED,
  memorySource,
  SIGNUP,
  STEPWISE_MANIFEST,
  TRIP,
} from '../../../../tests/support/form-fixtures.ts'
import {
  ConfirmationCard,
  type ToolDefinition,
  ToolScope,
  usePendingConfirmations,
  useTool,
} from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

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
    const { fill, submit } = formTools({ ...SIGNUP, source: memorySource() })
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
    await act(() => tm.call('signup.fill', { email: FILLED.email }, { caller: 'inapp' }))
    const asked = await act(() => tm.call('signup.submit', {}, { caller: 'inapp' }))
    expect(asked).toMatchObject({ status: 'needs_confirmation', changes: FILLED.changes })
    expect(tm.pendingConfirmations()[0]?.changes).toEqual(FILLED.changes)
    expect(screen.getByTestId('confirmation-card').textContent).toContain(FILLED.email)
  })

  it("publishes a wizard's tools with mode 'stepwise'", async () => {
    const { tm, wrap } = setup()
    const tools = wizardTools({ ...TRIP, source: memorySource() })
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
    expect(tm.manifest().tools.map((t) => [t.name, t.mode])).toEqual(STEPWISE_MANIFEST)
  })
})
