import type { Issue } from '@toolmark/core'
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { type FormValues, registerWizard, type WizardSource } from '../index.ts'

const FIELDS = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 3 },
    category: { type: 'string', enum: ['science', 'art'] },
    starts: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    secret: { type: 'string' },
  },
  required: ['title', 'category', 'starts'],
}

function setup() {
  const tm = createTestToolmark()
  const values: FormValues = { title: '', category: '', starts: '', secret: '' }
  let step = 'basics'
  const submitted: FormValues[] = []
  const source: WizardSource = {
    getValues: () => ({ ...values }),
    setValues: (patch) => void Object.assign(values, patch),
    getStep: () => step,
    setStep: (id) => {
      step = id
    },
    validate: (paths): Issue[] =>
      (!paths || paths.includes('starts')) && values.starts === '2020-01-01'
        ? [{ path: 'starts', message: 'Must be in the future' }]
        : [],
    submit: (v) => {
      submitted.push(v)
      return ok({ created: true })
    },
  }
  registerWizard(tm, {
    name: 'plan',
    title: 'Plan a challenge',
    description: 'plan a new challenge',
    fields: FIELDS,
    steps: [
      { id: 'basics', fields: ['title', 'category'] },
      { id: 'schedule', fields: ['starts'] },
      { id: 'review', fields: ['secret'] },
    ],
    sensitivePaths: ['secret'],
    source,
  })
  return { tm, values, submitted, step: () => step }
}

describe('wizard tools', () => {
  it("are 'stepwise' in the manifest", () => {
    const { tm } = setup()
    expect(tm.manifest().tools.map((t) => [t.name, t.mode])).toEqual([
      ['plan.back', 'stepwise'],
      ['plan.fill', 'stepwise'],
      ['plan.next', 'stepwise'],
      ['plan.submit', 'stepwise'],
    ])
  })

  it('fills and advances in order; a step cannot be skipped; validation is per step', async () => {
    const { tm, step } = setup()
    const c = { caller: 'inapp' } as const
    expect(
      await tm.call('plan.fill', { step: 'schedule', values: { starts: '2030-01-01' } }, c),
    ).toMatchObject({
      status: 'invalid',
      issues: [{ path: 'step', message: 'Complete step "basics" first: steps cannot be skipped' }],
    })
    expect(await tm.call('plan.fill', { values: { starts: '2030-01-01' } }, c)).toMatchObject({
      issues: [{ path: 'values.starts', message: 'Field "starts" belongs to step "schedule"' }],
    })
    expect(await tm.call('plan.next', {}, c)).toMatchObject({
      status: 'invalid',
      issues: [
        { path: 'title', message: 'Missing required property' },
        { path: 'category', message: expect.any(String) },
      ],
    })
    expect(step()).toBe('basics')
    expect(await tm.call('plan.fill', { values: { title: 'Robots', category: 'science' } }, c)).toEqual(
      ok([
        { path: 'title', after: 'Robots' },
        { path: 'category', after: 'science' },
      ]),
    )
    expect(await tm.call('plan.next', {}, c)).toEqual(ok({ step: 'schedule', fields: ['starts'] }))
    expect(tm.state('plan.fill')).toMatchObject({ step: 'schedule', steps: ['basics', 'schedule', 'review'] })
    await tm.call('plan.fill', { values: { starts: '2020-01-01' } }, c)
    expect(await tm.call('plan.next', {}, c)).toMatchObject({
      issues: [{ path: 'starts', message: 'Must be in the future' }],
    })
    await tm.call('plan.fill', { values: { starts: '2030-01-01' } }, c)
    expect(await tm.call('plan.submit', {}, c)).toMatchObject({
      status: 'invalid',
      issues: [{ path: '', message: 'Complete step "schedule" first' }],
    })
    expect((await tm.call('plan.next', {}, c)).status).toBe('ok')
    expect(step()).toBe('review')
  })

  it('an earlier step can be revisited; the final submit confirms the whole diff, secrets redacted', async () => {
    const { tm, values, submitted } = setup()
    const c = { caller: 'inapp' } as const
    await tm.call('plan.fill', { values: { title: 'Robots', category: 'science' } }, c)
    await tm.call('plan.next', {}, c)
    await tm.call('plan.fill', { values: { starts: '2030-01-01' } }, c)
    await tm.call('plan.next', {}, c)
    await tm.call('plan.fill', { values: { secret: 'hunter2' } }, c)
    expect(tm.state('plan.submit')).toMatchObject({ values: { secret: '[redacted]' } })
    expect(tm.state('plan.fill')).toMatchObject({ values: { secret: '[redacted]' } })
    // Revisit step one from the last step: its change shows in the final diff.
    expect(await tm.call('plan.fill', { step: 'basics', values: { title: 'Rovers' } }, c)).toEqual(
      ok([{ path: 'title', before: 'Robots', after: 'Rovers' }]),
    )
    const r = await tm.call('plan.submit', {}, c)
    expect(r).toMatchObject({
      status: 'needs_confirmation',
      summary: 'Submit "Plan a challenge"',
      changes: [
        { path: 'title', after: 'Rovers' },
        { path: 'category', after: 'science' },
        { path: 'starts', after: '2030-01-01' },
        { path: 'secret', after: '[redacted]' },
      ],
    })
    expect(JSON.stringify([r, tm.pendingConfirmations()])).not.toContain('hunter2')
    values.title = 'Changed'
    const confirmId = (r as { confirmId: string }).confirmId
    expect(await tm.confirmPending(confirmId, { approved: true })).toMatchObject({ code: 'stale' })
    const again = (await tm.call('plan.submit', {}, c)) as { confirmId: string }
    expect(await tm.confirmPending(again.confirmId, { approved: true })).toEqual(ok({ created: true }))
    expect(submitted).toEqual([
      { title: 'Changed', category: 'science', starts: '2030-01-01', secret: 'hunter2' },
    ])
  })

  it('back goes one step back, never before the first', async () => {
    const { tm, step } = setup()
    const c = { caller: 'inapp' } as const
    expect((await tm.call('plan.back', {}, c)).status).toBe('invalid')
    await tm.call('plan.fill', { values: { title: 'Robots', category: 'art' } }, c)
    await tm.call('plan.next', {}, c)
    expect(await tm.call('plan.back', {}, c)).toEqual(ok({ step: 'basics', fields: ['title', 'category'] }))
    expect(step()).toBe('basics')
  })
})
