import { type FormValues, formTools, type WizardSource, wizardTools } from '@toolmark/core/forms'
import { describe, expect, it } from 'vitest'
import { defineComponent, h, type PropType } from 'vue'
import {
  ConfirmationCard,
  type ToolDefinition,
  usePendingConfirmations,
  useScope,
  useTool,
} from '../index.ts'
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
    const { fill, submit } = formTools({
      name: 'signup',
      description: 'create an account',
      fields: FIELDS,
      source: source(),
    })
    const view = render(Tools, { name: 'signup', tools: [fill, submit] })
    await flush()
    await tm.call('signup.fill', { email: 'ada@example.com' }, { caller: 'inapp' })
    const asked = await tm.call('signup.submit', {}, { caller: 'inapp' })
    await flush()
    expect(asked).toMatchObject({
      status: 'needs_confirmation',
      changes: [{ path: 'email', after: 'ada@example.com' }],
    })
    expect(tm.pendingConfirmations()[0]?.changes).toEqual([{ path: 'email', after: 'ada@example.com' }])
    expect(view.get('[data-testid="confirmation-card"]').text()).toContain('ada@example.com')
  })

  it("publishes a wizard's tools with mode 'stepwise'", async () => {
    const { tm, render } = setup()
    const tools = wizardTools({
      name: 'trip',
      description: 'book a trip',
      fields: FIELDS,
      steps: [{ id: 'contact', fields: ['email'] }],
      source: source(),
    })
    render(Tools, { name: 'trip', tools })
    await flush()
    expect(tm.manifest().tools.map((t) => [t.name, t.mode])).toEqual([
      ['trip.back', 'stepwise'],
      ['trip.fill', 'stepwise'],
      ['trip.next', 'stepwise'],
      ['trip.submit', 'stepwise'],
    ])
  })
})
