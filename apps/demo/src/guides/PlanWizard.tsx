import { type FormValues, registerWizard, type WizardStep } from '@toolmark/forms'
import { useToolmark } from '@toolmark/react'
import { type ReactNode, useEffect, useReducer, useRef } from 'react'

const STEPS: WizardStep[] = [
  { id: 'basics', title: 'Basics', fields: ['name', 'category'] },
  { id: 'schedule', title: 'Schedule', fields: ['starts'] },
  { id: 'goal', title: 'Goal', fields: ['goal'] },
]
const FIELDS = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, description: 'Name of the challenge' },
    category: { type: 'string', enum: ['fitness', 'learning', 'creative'] },
    starts: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Start date, YYYY-MM-DD' },
    goal: { type: 'string', minLength: 3, description: 'What counts as done' },
  },
  required: ['name', 'category', 'starts', 'goal'],
}
const EMPTY: FormValues = { name: '', category: '', starts: '', goal: '' }

/**
 * "Plan a challenge": a three-step wizard, `plan.fill` / `.next` / `.back` / `.submit` (stepwise in
 * the manifest). The values and the step live here; the agent and the user move through the same
 * steps, and the final submit creates the challenge after the user confirms the whole diff.
 */
export function PlanWizard(): ReactNode {
  const tm = useToolmark()
  const state = useRef({ values: { ...EMPTY }, step: 'basics' })
  const [, rerender] = useReducer((n: number) => n + 1, 0)

  useEffect(() => {
    const s = state.current
    const handle = registerWizard(tm, {
      name: 'plan',
      title: 'Plan a challenge',
      description: 'plan a new challenge step by step (name and category, start date, goal) and create it',
      fields: FIELDS,
      steps: STEPS,
      summary: (v) => `Create challenge "${String(v.name)}"`,
      source: {
        getValues: () => ({ ...s.values }),
        setValues: (patch) => {
          Object.assign(s.values, patch)
          rerender()
        },
        getStep: () => s.step,
        setStep: (id) => {
          s.step = id
          rerender()
        },
        submit: async (v) => {
          const description = `${String(v.category)}, from ${String(v.starts)}: ${String(v.goal)}`
          const result = await tm.call(
            'challenges.create',
            { name: v.name, description },
            { caller: 'human' },
          )
          if (result.status === 'ok') {
            s.values = { ...EMPTY }
            s.step = 'basics'
            rerender()
          }
          return result.status === 'needs_confirmation' ? undefined : result
        },
      },
    })
    return () => handle.dispose()
  }, [tm])

  const { values, step } = state.current
  const index = STEPS.findIndex((s) => s.id === step)
  const current = STEPS[index] ?? STEPS[0]!
  return (
    <section className="plan stack" aria-label="Plan a challenge" data-testid="plan" data-step={step}>
      <h2>
        Plan a challenge · {current.title} ({index + 1}/{STEPS.length})
      </h2>
      {current.fields.map((field) => (
        <label key={field}>
          {field}{' '}
          <input
            data-testid={`plan-${field}`}
            value={String(values[field] ?? '')}
            onChange={(event) => {
              values[field] = event.target.value
              rerender()
            }}
          />
        </label>
      ))}
    </section>
  )
}
