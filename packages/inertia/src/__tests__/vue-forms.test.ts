import { App, useForm } from '@inertiajs/vue3'
import { createToolmark, type Toolmark } from '@toolmark/core'
import { ToolmarkPlugin } from '@toolmark/vue'
import { mount, type VueWrapper } from '@vue/test-utils'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { defineComponent, h, nextTick } from 'vue'
import { FORM_BUSY, useInertiaFormTools } from '../vue/index.ts'
import { CREATE_PAGE, FORM_FIELDS, type FormServer, startFormServer } from './support/form-server.ts'
import { settle } from './support/helpers.ts'
import { setPageUrl } from './support/inertia-server.ts'

/*
 * The binding over the real @inertiajs/vue3 3.7 useForm and router (in happy-dom, Vue 3.5),
 * against the loopback Inertia protocol server (support/form-server.ts).
 */

let f: FormServer
let wrapper: VueWrapper | undefined

const Create = defineComponent({
  setup: function Create() {
    const form = useForm({ title: '', points: 10, secret: '' })
    useInertiaFormTools(form, {
      name: 'challenge',
      description: 'Create a challenge',
      fields: FORM_FIELDS,
      action: { method: 'post', url: '/challenges' },
      sensitivePaths: ['secret'],
    })
    return () =>
      h('form', [
        h('input', {
          'aria-label': 'Title',
          value: form.title,
          onInput: (e: Event) => {
            form.title = (e.target as HTMLInputElement).value
          },
        }),
        h('output', { id: 'errors' }, JSON.stringify(form.errors)),
        h('output', { id: 'processing' }, String(form.processing)),
        h('button', { type: 'button', onClick: () => form.post('/challenges') }, 'Save'),
      ])
  },
})
const Show = defineComponent({ setup: () => () => h('h1', 'Saved') })
const pages: Record<string, unknown> = { 'Challenges/Create': Create, 'Challenges/Show': Show }

beforeAll(async () => {
  f = await startFormServer()
  setPageUrl(`${f.server.url}/challenges/create`)
})
afterAll(() => f.server.close())
beforeEach(() => {
  f.saved.length = 0
})
afterEach(() => wrapper?.unmount())

async function start(): Promise<Toolmark> {
  const tm = createToolmark()
  wrapper = mount(
    defineComponent({
      setup: () => () =>
        h(App as never, {
          initialPage: CREATE_PAGE,
          initialComponent: Create,
          resolveComponent: (name: string) => pages[name],
        }),
    }),
    { global: { plugins: [[ToolmarkPlugin, { toolmark: tm }]] }, attachTo: document.body },
  )
  await settle(nextTick)
  return tm
}

async function ask(tm: Toolmark) {
  const asked = (await tm.call('challenge.submit', {}, { caller: 'inapp' })) as {
    status: string
    confirmId: string
    changes: unknown
  }
  expect(asked.status).toBe('needs_confirmation')
  return asked
}

const text = (id: string) => wrapper?.get(`#${id}`).text()

describe('useInertiaFormTools (Vue)', () => {
  it('fill assigns the fields and returns the diff; submit posts after approval', async () => {
    const tm = await start()
    const fill = await tm.call(
      'challenge.fill',
      { title: 'Robotics', secret: 'hunter2' },
      { caller: 'inapp' },
    )
    expect(fill).toEqual({
      status: 'ok',
      data: [
        { path: 'title', after: 'Robotics' },
        { path: 'secret', after: '[redacted]' },
      ],
    })
    await settle(nextTick)
    expect((document.querySelector('input') as HTMLInputElement).value).toBe('Robotics')
    const asked = await ask(tm)
    expect(asked.changes).toEqual(fill.status === 'ok' ? fill.data : null)
    expect(await tm.confirmPending(asked.confirmId, { approved: true })).toEqual({ status: 'ok' })
    expect(f.saved).toEqual([{ title: 'Robotics', points: 10, secret: 'hunter2' }])
    await settle(nextTick)
    expect(wrapper?.get('h1').text()).toBe('Saved')
    expect(tm.manifest().tools).toEqual([])
  })

  it('server validation errors answer invalid at the field path; a fill clears that error', async () => {
    const tm = await start()
    await tm.call('challenge.fill', { title: 'Taken' }, { caller: 'inapp' })
    const asked = await ask(tm)
    expect(await tm.confirmPending(asked.confirmId, { approved: true })).toEqual({
      status: 'invalid',
      issues: [{ path: 'title', message: 'The title has already been taken.' }],
    })
    await settle(nextTick)
    expect(text('errors')).toBe('{"title":"The title has already been taken."}')
    await tm.call('challenge.fill', { title: 'Fresh title' }, { caller: 'inapp' })
    await settle(nextTick)
    expect(text('errors')).toBe('{}')
    expect(f.saved).toEqual([])
  })

  it('an approval after the user edited the form is refused stale', async () => {
    const tm = await start()
    await tm.call('challenge.fill', { title: 'Robotics' }, { caller: 'inapp' })
    const asked = await ask(tm)
    await wrapper?.get('input').setValue('Robotics!')
    expect(await tm.confirmPending(asked.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    expect(f.saved).toEqual([])
  })

  it('a submit while form.processing is refused busy', async () => {
    const tm = await start()
    await tm.call('challenge.fill', { title: 'Robotics' }, { caller: 'inapp' })
    const asked = await ask(tm)
    const release = f.hold()
    await wrapper?.get('button').trigger('click')
    await settle(nextTick)
    expect(text('processing')).toBe('true')
    expect(await tm.confirmPending(asked.confirmId, { approved: true })).toEqual({
      status: 'refused',
      code: 'busy',
      message: FORM_BUSY,
    })
    release()
    await settle(nextTick)
    expect(f.saved).toEqual([{ title: 'Robotics', points: 10, secret: '' }])
  })
})
