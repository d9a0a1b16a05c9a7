import { screen } from '@testing-library/svelte'
import { formTools, wizardTools } from '@toolmark/forms'
import { describe, expect, it } from 'vitest'
import {
  FILLED,
  memorySource,
  SIGNUP,
  STEPWISE_MANIFEST,
  TRIP,
} from '../../../../tests/support/form-fixtures.ts'
import FormTools from './fixtures/FormTools.svelte'
import { flush, setup } from './utils.ts'

describe('useTool with form and wizard tools', () => {
  it("shows a form submit's field changes on its card", async () => {
    const { tm, mount } = setup()
    const { fill, submit } = formTools({ ...SIGNUP, source: memorySource() })
    mount(FormTools, { name: 'signup', tools: [fill, submit] })
    await flush()
    await tm.call('signup.fill', { email: FILLED.email }, { caller: 'inapp' })
    const asked = await tm.call('signup.submit', {}, { caller: 'inapp' })
    await flush()
    expect(asked).toMatchObject({ status: 'needs_confirmation', changes: FILLED.changes })
    expect(tm.pendingConfirmations()[0]?.changes).toEqual(FILLED.changes)
    expect(screen.getByTestId('confirmation-card').textContent).toContain(FILLED.email)
  })

  it("publishes a wizard's tools with mode 'stepwise'", async () => {
    const { tm, mount } = setup()
    const tools = wizardTools({ ...TRIP, source: memorySource() })
    mount(FormTools, { name: 'trip', tools })
    await flush()
    expect(tm.manifest().tools.map((t) => [t.name, t.mode])).toEqual(STEPWISE_MANIFEST)
  })
})
