import { createToolmark, ok } from '@toolmark/core'
import { type FormSource, registerForm } from '@toolmark/forms'

const tm = createToolmark()
const values = { title: '', starts: '', pin: '' }

const source: FormSource<typeof values> = {
  getValues: () => ({ ...values }),
  setValues: (patch) => void Object.assign(values, patch),
  validate: () => (values.starts < '2026' ? [{ path: 'starts', message: 'Pick a future date' }] : []),
  submit: async (v) => ok(await saveChallenge(v)),
}
const properties = {
  title: { type: 'string', minLength: 3 },
  starts: { type: 'string' },
  pin: { type: 'string' },
}

registerForm(tm, {
  name: 'challenge',
  description: 'create a challenge',
  fields: { type: 'object', properties, required: ['title', 'starts'] },
  sensitivePaths: ['pin'],
  source,
})
// challenge.fill { title: 'Robots' } → ok([{ path: 'title', after: 'Robots' }])
// challenge.submit {} → needs_confirmation with the diff since the last submit

declare function saveChallenge(values: object): Promise<{ id: number }>
