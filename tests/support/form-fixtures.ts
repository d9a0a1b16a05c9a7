/*
 * The form and wizard the adapters' `useTool` form tests register (React, Vue and Svelte alike), written
 * structurally so this file resolves no package: each test passes them to `formTools` / `wizardTools`.
 */

/** One e-mail field. */
export const FIELDS = { type: 'object', properties: { email: { type: 'string' } } } as const

/** A plain form source holding its values (and the wizard's step). */
export function memorySource(): {
  getValues(): Record<string, unknown>
  setValues(next: Record<string, unknown>): void
  submit(): undefined
  getStep(): string
  setStep(id: string): void
} {
  let values: Record<string, unknown> = { email: '' }
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

/** The sign-up form's options (without its source). */
export const SIGNUP = { name: 'signup', description: 'create an account', fields: FIELDS } as const

/** The one-step wizard's options (without its source). */
export const TRIP = {
  name: 'trip',
  description: 'book a trip',
  fields: FIELDS,
  steps: [{ id: 'contact', fields: ['email'] }],
}

/** What the sign-up submit's card lists after `signup.fill` with this e-mail. */
export const FILLED = {
  email: 'ada@example.com',
  changes: [{ path: 'email', after: 'ada@example.com' }],
} as const

/** The wizard's manifest entries: every tool of a stepwise wizard carries `mode: 'stepwise'`. */
export const STEPWISE_MANIFEST = [
  ['trip.back', 'stepwise'],
  ['trip.fill', 'stepwise'],
  ['trip.next', 'stepwise'],
  ['trip.submit', 'stepwise'],
]
