import { bridge } from '@toolmark/bridge'
import { createInPageChannel } from '@toolmark/bridge/in-page'
import type { ConfirmRequest, Issue, Toolmark, ToolResult } from '@toolmark/core'
import { invalid, ok } from '@toolmark/core'
import { createTestAgent, createTestToolmark } from '@toolmark/core/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffValues, type FormSource, type FormValues, registerForm } from '../index.ts'

const FIELDS = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    password: { type: 'string' },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'email'],
}

/** Plain values in memory, with an app rule: emails must end in .org. */
function memorySource(initial: FormValues = {}) {
  const values: FormValues = { name: '', email: '', password: '', ...initial }
  const submitted: FormValues[] = []
  const source: FormSource = {
    getValues: () => ({ ...values }),
    setValues: (patch) => void Object.assign(values, patch),
    validate: (paths) => {
      const issues: Issue[] = []
      const email = values.email
      if (
        (!paths || paths.includes('email')) &&
        typeof email === 'string' &&
        email &&
        !email.endsWith('.org')
      )
        issues.push({ path: 'email', message: 'Use your .org address' })
      return issues
    },
    submit: (v) => {
      submitted.push(v)
      return ok({ id: 1 })
    },
  }
  return { values, submitted, source }
}

function setup(options: { confirm?: Parameters<typeof createTestToolmark>[0] } = {}) {
  const tm = createTestToolmark(options.confirm)
  const mem = memorySource()
  const handle = registerForm(tm, {
    name: 'signup',
    title: 'Sign up',
    description: 'create an account',
    fields: FIELDS,
    source: mem.source,
    sensitivePaths: ['password'],
  })
  return { tm, ...mem, handle }
}

describe('diffValues', () => {
  it('lists changed leaves, absent meaning empty, redacting sensitive paths', () => {
    expect(
      diffValues(
        { a: '', b: 'x', c: 1, d: { e: 'p' }, pw: '', tags: [] },
        { a: 'new', b: '', c: 1, d: { e: 'q' }, pw: 'hunter2', tags: ['t'] },
        ['pw'],
      ),
    ).toEqual([
      { path: 'a', after: 'new' },
      { path: 'b', before: 'x' },
      { path: 'd.e', before: 'p', after: 'q' },
      { path: 'pw', after: '[redacted]' },
      { path: 'tags', after: ['t'] },
    ])
    expect(diffValues({ a: null }, { a: '' })).toEqual([])
  })
})

describe('form tools', () => {
  it('fill sets only the given fields and returns the FieldChange[] diff', async () => {
    const { tm, values } = setup()
    values.name = 'Ada'
    const r = await tm.call('signup.fill', { email: 'ada@example.org', age: 36 }, { caller: 'inapp' })
    expect(r).toEqual({
      status: 'ok',
      data: [
        { path: 'email', after: 'ada@example.org' },
        { path: 'age', after: 36 },
      ],
    })
    expect(values).toMatchObject({ name: 'Ada', email: 'ada@example.org', age: 36 })
    expect(tm.info('signup.fill')?.needsConfirmation).toBe(false)
    expect(tm.info('signup.fill')?.hints).toEqual({ readOnly: true })
    expect(tm.info('signup.submit')?.needsConfirmation).toBe(true)
  })

  it('fill rejects unknown fields and wrong types before touching the form', async () => {
    const { tm, values } = setup()
    const r = await tm.call('signup.fill', { nmae: 'x', age: 'old' }, { caller: 'inapp' })
    expect(r.status).toBe('invalid')
    expect((r as { issues: Issue[] }).issues.map((i) => i.path).sort()).toEqual(['age', 'nmae'])
    expect(values.age).toBeUndefined()
  })

  it("the app's own validation comes back as invalid issues at the field's path", async () => {
    const { tm } = setup()
    expect(await tm.call('signup.fill', { email: 'ada@example.com' }, { caller: 'inapp' })).toEqual(
      invalid([{ path: 'email', message: 'Use your .org address' }]),
    )
    await tm.call('signup.fill', { email: 'ada@example.org' }, { caller: 'inapp' })
    // Submit checks the whole form (required name) before any confirmation is asked.
    expect(await tm.call('signup.submit', {}, { caller: 'inapp' })).toEqual(
      invalid([{ path: 'name', message: 'Missing required property' }]),
    )
    expect(tm.pendingConfirmations()).toHaveLength(0)
  })

  it('submit (deferred) shows the diff since the last submit; approval submits the real values', async () => {
    const { tm, submitted } = setup()
    await tm.call(
      'signup.fill',
      { name: 'Ada', email: 'ada@x.org', password: 'hunter2' },
      { caller: 'inapp' },
    )
    const r = await tm.call('signup.submit', {}, { caller: 'inapp' })
    expect(r).toMatchObject({
      status: 'needs_confirmation',
      summary: 'Submit "Sign up"',
      changes: [
        { path: 'name', after: 'Ada' },
        { path: 'email', after: 'ada@x.org' },
        { path: 'password', after: '[redacted]' },
      ],
    })
    const confirmId = (r as { confirmId: string }).confirmId
    expect(tm.pendingConfirmations()[0]?.changes).toEqual((r as { changes: unknown }).changes)
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual(ok({ id: 1 }))
    expect(submitted).toEqual([{ name: 'Ada', email: 'ada@x.org', password: 'hunter2' }])
    // The baseline moved: only what changed since is shown next time.
    await tm.call('signup.fill', { name: 'Ada L.' }, { caller: 'inapp' })
    const again = await tm.call('signup.submit', {}, { caller: 'inapp' })
    expect((again as { changes: unknown }).changes).toEqual([
      { path: 'name', before: 'Ada', after: 'Ada L.' },
    ])
  })

  it('a deferred submit approved after the values changed is refused stale', async () => {
    const { tm, values, submitted } = setup()
    await tm.call('signup.fill', { name: 'Ada', email: 'ada@x.org' }, { caller: 'inapp' })
    const r = (await tm.call('signup.submit', {}, { caller: 'inapp' })) as { confirmId: string }
    values.name = 'Eve' // the user (or a fill) edits the form while the card is open
    expect(await tm.confirmPending(r.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    expect(submitted).toEqual([])
    // A fill through the tool counts the same.
    const r2 = (await tm.call('signup.submit', {}, { caller: 'inapp' })) as { confirmId: string }
    await tm.call('signup.fill', { name: 'Mallory' }, { caller: 'inapp' })
    expect((await tm.confirmPending(r2.confirmId, { approved: true })).status).toBe('refused')
    expect(submitted).toEqual([])
  })

  it('an inline approval re-checks the values the same way', async () => {
    let change: (() => void) | undefined
    const requests: ConfirmRequest[] = []
    const { tm, values, submitted } = setup({
      confirm: {
        confirm: (req) => {
          requests.push(req)
          change?.()
          return { approved: true }
        },
      },
    })
    await tm.call('signup.fill', { name: 'Ada', email: 'ada@x.org', password: 'pw-1' }, { caller: 'tour' })
    change = () => {
      values.email = 'eve@x.org'
    }
    expect(await tm.call('signup.submit', {}, { caller: 'tour' })).toMatchObject({ code: 'stale' })
    expect(requests[0]?.changes).toEqual([
      { path: 'name', after: 'Ada' },
      { path: 'email', after: 'ada@x.org' },
      { path: 'password', after: '[redacted]' },
    ])
    change = undefined
    expect(await tm.call('signup.submit', {}, { caller: 'tour' })).toEqual(ok({ id: 1 }))
    expect(submitted).toHaveLength(1)
  })

  it('state() and events redact sensitive fields; disposing removes both tools', async () => {
    const { tm, handle } = setup()
    const seen: unknown[] = []
    tm.events.on('call', (e) => seen.push(e))
    tm.events.on('result', (e) => seen.push(e))
    await tm.call('signup.fill', { password: 'hunter2' }, { caller: 'inapp' })
    expect(tm.state('signup.fill')).toMatchObject({ password: '[redacted]' })
    expect(JSON.stringify(seen)).not.toContain('hunter2')
    const rev = tm.rev
    handle.dispose()
    expect(tm.manifest().tools).toEqual([])
    expect(tm.rev).toBeGreaterThan(rev)
  })
})

describe('registerForm lifetime', () => {
  it('aborting the registration signal removes both tools', () => {
    const tm = createTestToolmark()
    const controller = new AbortController()
    registerForm(
      tm,
      { name: 'f', description: 'd', fields: FIELDS, source: memorySource().source },
      { signal: controller.signal },
    )
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['f.fill', 'f.submit'])
    controller.abort()
    expect(tm.manifest().tools).toEqual([])
  })
})

/** Every message, event, card and state the page produces while a secret goes through a form. */
async function secretRun(tm: Toolmark, secret: string, typed: boolean, values: FormValues): Promise<string> {
  const out: unknown[] = []
  for (const e of ['call', 'result', 'confirm', 'interaction', 'error'] as const)
    tm.events.on(e, (p) => out.push(p))
  const { transport, agent } = createInPageChannel()
  agent.onMessage((m) => out.push(m))
  const stop = tm.use(bridge({ transport }))
  const a = createTestAgent(agent)
  await new Promise((r) => setTimeout(r, 0))
  if (typed) values.password = secret
  else out.push(await a.call('signup.fill', { name: 'Ada', password: secret }))
  out.push(await a.call('signup.fill', { name: 'Ada', email: 'a@b.org' }))
  out.push(tm.state('signup.fill'), tm.state('signup.submit'))
  const r = (await a.call('signup.submit', {})) as ToolResult & { confirmId: string }
  out.push(r, tm.pendingConfirmations())
  out.push(await tm.confirmPending(r.confirmId, { approved: true }))
  await new Promise((r) => setTimeout(r, 0))
  stop()
  return JSON.stringify(out)
}

describe('a password never leaves the page (property)', () => {
  it('typed by the user or filled by the agent, no diff, card, state, event or bridge message carries it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 4 }), fc.boolean(), async (raw, typed) => {
        const secret = `S!${raw}`
        const { tm, values, submitted } = setup({ confirm: { dev: false } })
        const text = await secretRun(tm, secret, typed, values)
        expect(submitted[0]?.password).toBe(secret) // the real value was submitted
        expect(text).not.toContain(JSON.stringify(secret).slice(1, -1))
      }),
      { numRuns: 150 },
    )
  })
})

describe('the submit summary', () => {
  it('is computed from the values with sensitive fields redacted, so a card never shows a secret', async () => {
    const tm = createTestToolmark()
    const mem = memorySource({ name: 'Ada', email: 'ada@example.org', password: 'hunter2' })
    registerForm(tm, {
      name: 'signup',
      description: 'create an account',
      fields: FIELDS,
      source: mem.source,
      sensitivePaths: ['password'],
      summary: (values) => `Sign up ${String(values.name)} with password ${String(values.password)}`,
    })
    const asked = await tm.call('signup.submit', {}, { caller: 'inapp' })
    expect(asked).toMatchObject({
      status: 'needs_confirmation',
      summary: 'Sign up Ada with password [redacted]',
    })
    expect(JSON.stringify(tm.pendingConfirmations())).not.toContain('hunter2')
  })
})
