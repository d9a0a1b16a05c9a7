import { formTools, wizardTools } from '@toolmark/forms'
import { describe, expect, it } from 'vitest'
import { defineComponent, h, type PropType } from 'vue'
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
  usePendingConfirmations,
  useScope,
  useTool,
} from '../index.ts'
import { flush, setup } from './utils.ts'

const Tool = defineComponent({
  props: { definition: { type: Object as PropType<ToolDefinition>, required: true } },
  setup(props) {
    useTool(() => props.definition)
    return () => null
  },
})

/** The given tools in a scope named `name`, and a card per pending confirmation. */
const Tools = defineComponent({
  props: {
    name: { type: String, required: true },
    tools: { type: Array as PropType<readonly ToolDefinition[]>, required: true },
  },
  setup(props) {
    useScope(props.name)
    const pending = usePendingConfirmations()
    return () => [
      ...props.tools.map((tool) => h(Tool, { key: tool.name, definition: tool })),
      ...pending.items.value.map((item) => h(ConfirmationCard, { key: item.confirmId, confirmation: item })),
    ]
  },
})

describe('useTool with form and wizard tools', () => {
  it("shows a form submit's field changes on its card", async () => {
    const { tm, render } = setup()
    const { fill, submit } = formTools({ ...SIGNUP, source: memorySource() })
    const view = render(Tools, { name: 'signup', tools: [fill, submit] })
    await flush()
    await tm.call('signup.fill', { email: FILLED.email }, { caller: 'inapp' })
    const asked = await tm.call('signup.submit', {}, { caller: 'inapp' })
    await flush()
    expect(asked).toMatchObject({ status: 'needs_confirmation', changes: FILLED.changes })
    expect(tm.pendingConfirmations()[0]?.changes).toEqual(FILLED.changes)
    expect(view.get('[data-testid="confirmation-card"]').text()).toContain(FILLED.email)
  })

  it("publishes a wizard's tools with mode 'stepwise'", async () => {
    const { tm, render } = setup()
    const tools = wizardTools({ ...TRIP, source: memorySource() })
    render(Tools, { name: 'trip', tools })
    await flush()
    expect(tm.manifest().tools.map((t) => [t.name, t.mode])).toEqual(STEPWISE_MANIFEST)
  })
})
