import { isToolmarkError, ok } from '@toolmark/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApp, defineComponent, h, ref } from 'vue'
import * as z from 'zod'
import { ToolmarkPlugin, useTool } from '../index.ts'
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
