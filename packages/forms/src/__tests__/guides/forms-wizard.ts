import { createToolmark, ok } from '@toolmark/core'
import { registerWizard } from '@toolmark/forms'

const tm = createToolmark()
const values = { title: '', category: '', starts: '' }
const ui = { step: 'basics' }
const properties = {
  title: { type: 'string' },
  category: { enum: ['art', 'science'] },
  starts: { type: 'string' },
}

registerWizard(tm, {
  name: 'plan',
  description: 'plan a challenge',
  fields: { type: 'object', properties, required: ['title', 'category', 'starts'] },
  steps: [
    { id: 'basics', fields: ['title', 'category'] },
    { id: 'schedule', fields: ['starts'] },
  ],
  source: {
    getValues: () => ({ ...values }),
    setValues: (patch) => void Object.assign(values, patch),
    getStep: () => ui.step,
    setStep: (id) => void Object.assign(ui, { step: id }),
    submit: () => ok({ planned: true }),
  },
})
// plan.fill, plan.next, plan.back, plan.submit — all mode: 'stepwise' in the manifest
