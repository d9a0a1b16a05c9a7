import { App, router, useForm } from '@inertiajs/react'
import { act, fireEvent, render, screen } from '@testing-library/react'
import { createToolmark, type Toolmark } from '@toolmark/core'
import { ToolmarkProvider } from '@toolmark/react'
import { StrictMode } from 'react'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FORM_BUSY, FORM_CANCELLED, useInertiaFormTools } from '../react/index.tsx'
import { CREATE_PAGE, FORM_FIELDS, type FormServer, startFormServer } from './support/form-server.ts'
import { settleInAct } from './support/helpers.ts'
import { setPageUrl } from './support/inertia-server.ts'

/*
 * The binding over the real @inertiajs/react 3.7 useForm and router (in happy-dom, React 19),
 * against the loopback Inertia protocol server (support/form-server.ts: validation failures are a
 * redirect back with the errors in the next page's `errors` prop, as Laravel answers).
 */

let f: FormServer

function Create() {
  const form = useForm({ title: '', points: 10, secret: '' })
  useInertiaFormTools(form, {
    name: 'challenge',
    description: 'Create a challenge',
    title: 'New challenge',
    fields: FORM_FIELDS,
    action: { method: 'post', url: '/challenges' },
    sensitivePaths: ['secret'],
  })
  return (
    <form>
      <input
        aria-label="Title"
        value={form.data.title}
        onChange={(e) => form.setData('title', e.target.value)}
      />
      <output data-testid="errors">{JSON.stringify(form.errors)}</output>
      <output data-testid="processing">{String(form.processing)}</output>
      <button type="button" onClick={() => form.post('/challenges')}>
        Save
      </button>
    </form>
  )
}
function Show() {
  return <h1>Saved</h1>
}

beforeAll(async () => {
  f = await startFormServer()
  setPageUrl(`${f.server.url}/challenges/create`)
})
afterAll(() => f.server.close())
beforeEach(() => {
  f.saved.length = 0
})

const pages: Record<string, unknown> = { 'Challenges/Create': Create, 'Challenges/Show': Show }

async function mount(): Promise<Toolmark> {
  const tm = createToolmark()
  render(
    <StrictMode>
      <ToolmarkProvider toolmark={tm}>
        <App
          initialPage={CREATE_PAGE as never}
          initialComponent={Create as never}
          resolveComponent={((name: string) => pages[name]) as never}
        />
      </ToolmarkProvider>
    </StrictMode>,
  )
  await settleInAct(act)
  return tm
}

async function approve(tm: Toolmark) {
  const asked = (await act(() => tm.call('challenge.submit', {}, { caller: 'inapp' }))) as {
    status: string
    confirmId: string
    changes: unknown
  }
  expect(asked.status).toBe('needs_confirmation')
  return asked
}

describe('useInertiaFormTools (React)', () => {
  it('fill sets the data through setData and returns the diff, sensitive fields redacted', async () => {
    const tm = await mount()
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['challenge.fill', 'challenge.submit'])
    const fill = await act(() =>
      tm.call('challenge.fill', { title: 'Robotics', points: 25, secret: 'hunter2' }, { caller: 'inapp' }),
    )
    expect(fill).toEqual({
      status: 'ok',
      data: [
        { path: 'title', after: 'Robotics' },
        { path: 'points', before: 10, after: 25 },
        { path: 'secret', after: '[redacted]' },
      ],
    })
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('Robotics')
    // Two fills before React renders again: the second sees the first's values.
    const twice = await act(async () => {
      await tm.call('challenge.fill', { title: 'Robotics 2' }, { caller: 'inapp' })
      return tm.call('challenge.fill', { points: 30 }, { caller: 'inapp' })
    })
    expect(twice).toEqual({ status: 'ok', data: [{ path: 'points', before: 25, after: 30 }] })
    expect(await act(() => tm.call('challenge.fill', { title: 'ab' }, { caller: 'inapp' }))).toMatchObject({
      status: 'invalid',
      issues: [{ path: 'title' }],
    })
  })

  it('submit asks with the diff, then posts the data through the router after approval', async () => {
    const tm = await mount()
    await act(() => tm.call('challenge.fill', { title: 'Robotics', secret: 's3cret' }, { caller: 'inapp' }))
    const asked = await approve(tm)
    expect(asked.changes).toEqual([
      { path: 'title', after: 'Robotics' },
      { path: 'secret', after: '[redacted]' },
    ])
    expect(f.saved).toEqual([])
    const done = await act(() => tm.confirmPending(asked.confirmId, { approved: true }))
    expect(done).toEqual({ status: 'ok' })
    expect(f.saved).toEqual([{ title: 'Robotics', points: 10, secret: 's3cret' }])
    const post = f.server.requests.findLast((r) => r.method === 'POST')
    expect(post?.headers['x-inertia']).toBe('true')
    await settleInAct(act)
    expect(screen.getByRole('heading').textContent).toBe('Saved')
    // The form page is gone, and its tools with it.
    expect(tm.manifest().tools).toEqual([])
  })

  it('server validation errors (redirect back with errors) answer invalid at the field path', async () => {
    const tm = await mount()
    await act(() => tm.call('challenge.fill', { title: 'Taken' }, { caller: 'inapp' }))
    const asked = await approve(tm)
    const done = await act(() => tm.confirmPending(asked.confirmId, { approved: true }))
    expect(done).toEqual({
      status: 'invalid',
      issues: [{ path: 'title', message: 'The title has already been taken.' }],
    })
    await settleInAct(act)
    expect(f.saved).toEqual([])
    expect(screen.getByTestId('errors').textContent).toBe('{"title":"The title has already been taken."}')
    // A fill of that field clears its server error; the next submit goes through.
    await act(() => tm.call('challenge.fill', { title: 'Fresh title' }, { caller: 'inapp' }))
    expect(screen.getByTestId('errors').textContent).toBe('{}')
    const again = await approve(tm)
    expect(again.changes).toEqual([{ path: 'title', after: 'Fresh title' }])
    expect(await act(() => tm.confirmPending(again.confirmId, { approved: true }))).toEqual({ status: 'ok' })
    expect(f.saved).toEqual([{ title: 'Fresh title', points: 10, secret: '' }])
  })

  it('an approval after the user edited the form is refused stale; nothing is posted', async () => {
    const tm = await mount()
    await act(() => tm.call('challenge.fill', { title: 'Robotics' }, { caller: 'inapp' }))
    const asked = await approve(tm)
    fireEvent.change(screen.getByLabelText('Title'), { target: { value: 'Robotics!' } })
    await settleInAct(act)
    expect(await act(() => tm.confirmPending(asked.confirmId, { approved: true }))).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    expect(f.saved).toEqual([])
  })

  it('a submit while the form is processing (the user clicked Save) is refused busy', async () => {
    const tm = await mount()
    await act(() => tm.call('challenge.fill', { title: 'Robotics' }, { caller: 'inapp' }))
    const asked = await approve(tm)
    const release = f.hold()
    fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await settleInAct(act)
    expect(screen.getByTestId('processing').textContent).toBe('true')
    expect(await act(() => tm.confirmPending(asked.confirmId, { approved: true }))).toEqual({
      status: 'refused',
      code: 'busy',
      message: FORM_BUSY,
    })
    release()
    await settleInAct(act)
    // Only the user's own submit was posted.
    expect(f.saved).toEqual([{ title: 'Robotics', points: 10, secret: '' }])
  })

  it('a visit cancelled by an app `before` listener is refused not_allowed, and the form can submit again', async () => {
    const tm = await mount()
    await act(() => tm.call('challenge.fill', { title: 'Robotics' }, { caller: 'inapp' }))
    const stop = router.on('before', () => false)
    const asked = await approve(tm)
    expect(await act(() => tm.confirmPending(asked.confirmId, { approved: true }))).toEqual({
      status: 'refused',
      code: 'not_allowed',
      message: FORM_CANCELLED,
    })
    stop()
    const again = await approve(tm)
    expect(await act(() => tm.confirmPending(again.confirmId, { approved: true }))).toEqual({ status: 'ok' })
    expect(f.saved).toEqual([{ title: 'Robotics', points: 10, secret: '' }])
  })
})
