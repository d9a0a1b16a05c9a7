import { isToolmarkError, ok } from '@toolmark/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApp, defineComponent, h, ref } from 'vue'
import * as z from 'zod'
import { ToolmarkPlugin, useScope, useTool } from '../index.ts'
import { flush, names, setup } from './utils.ts'

const Search = defineComponent({
  props: { label: { type: String, required: true } },
  setup(props) {
    useTool({ name: 'search', description: 'Search', hints: { readOnly: true }, run: () => ok(props.label) })
    return () => null
  },
})

afterEach(() => {
  vi.restoreAllMocks()
})

describe('useTool: inline schemas', () => {
  it('keeps the registration, rev and pending confirmation when a getter rebuilds an equal schema', async () => {
    const { tm, render } = setup()
    const label = ref('a')
    render(
      defineComponent({
        setup() {
          // The getter reads `label`, so every change of it builds a new definition and a new schema.
          useTool(() => ({
            name: 'publish',
            description: 'Publish',
            input: z.object({ name: z.string().min(1) }),
            hints: { consequential: true },
            summary: `Publish as ${label.value}`,
            run: ({ name }) => ok({ published: name, label: label.value }),
          }))
          return () => null
        },
      }),
    )
    await flush()
    const asked = await tm.call('publish', { name: 'x' }, { caller: 'inapp' })
    const confirmId = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    expect(tm.pendingConfirmations()[0]?.summary).toBe('Publish as a')
    const rev = tm.rev
    const notified: number[] = []
    tm.subscribe((r) => notified.push(r))
    label.value = 'b'
    await flush()
    label.value = 'c'
    await flush()
    expect(tm.rev).toBe(rev)
    expect(notified).toEqual([])
    expect(tm.pendingConfirmations().map((p) => p.confirmId)).toEqual([confirmId])
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual({
      status: 'ok',
      data: { published: 'x', label: 'c' },
    })
    expect((await tm.call('publish', { name: '' }, { caller: 'human' })).status).toBe('invalid')
  })
})

describe('useTool: a taken name', () => {
  it('registers the second declaration when the first unmounts (production)', async () => {
    const { tm, errors, render } = setup({ dev: false })
    const first = ref(true)
    const wrapper = render(
      defineComponent({
        setup: () => () => [
          first.value ? h(Search, { key: 'a', label: 'first' }) : null,
          h(Search, { key: 'b', label: 'second' }),
        ],
      }),
    )
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(errors).toContain('error:duplicate_name')
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'first' })
    first.value = false
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'second' })
    wrapper.unmount()
    await flush()
    expect(names(tm)).toEqual([])
  })

  it("throws duplicate_name to the app's errorHandler in development", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const { tm } = setup()
    const caught: unknown[] = []
    const app = createApp(
      defineComponent({ setup: () => () => [h(Search, { label: 'first' }), h(Search, { label: 'second' })] }),
    )
    app.use(ToolmarkPlugin, { toolmark: tm })
    app.config.errorHandler = (error) => void caught.push(error)
    app.mount(document.createElement('div'))
    await flush()
    expect(caught).toHaveLength(1)
    expect(isToolmarkError(caught[0]) && caught[0].code).toBe('duplicate_name')
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'first' })
    app.unmount()
    expect(names(tm)).toEqual([])
  })
})

describe('useScope: a bad name', () => {
  it("throws invalid_name to the app's errorHandler in development", async () => {
    const { tm } = setup()
    const caught: unknown[] = []
    const app = createApp(
      defineComponent({
        setup() {
          useScope('bad name')
          return () => null
        },
      }),
    )
    app.use(ToolmarkPlugin, { toolmark: tm })
    app.config.errorHandler = (error) => void caught.push(error)
    app.mount(document.createElement('div'))
    await flush()
    expect(isToolmarkError(caught[0]) && caught[0].code).toBe('invalid_name')
    app.unmount()
  })

  it('reports invalid_name and registers none of its tools in production', async () => {
    const { tm, errors, render } = setup({ dev: false })
    render(
      defineComponent({
        setup() {
          useScope('bad name')
          return () => h(Search, { label: 'x' })
        },
      }),
    )
    await flush()
    expect(errors).toContain('error:invalid_name')
    expect(names(tm)).toEqual([])
  })
})
