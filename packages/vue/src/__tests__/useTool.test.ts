import { createTestToolmark } from '@toolmark/core/testing'
import { mount } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, effectScope, h, type PropType, ref, shallowRef } from 'vue'
import * as z from 'zod'
import {
  NO_INJECTION_CONTEXT,
  NO_TOOLMARK,
  provideToolmark,
  type ToolmarkConsumer,
  ToolmarkPlugin,
  useTool,
  useToolAnchor,
  useToolmark,
} from '../index.ts'
import { flush, names, setup } from './utils.ts'

const Search = z.object({ query: z.string() })

const SearchTool = defineComponent({
  setup() {
    useTool({ name: 'search', description: 'Search', hints: { readOnly: true }, run: () => undefined })
    return () => h('p', 'search')
  },
})

const Counter = defineComponent({
  setup(_, { expose }) {
    const count = ref(0)
    expose({ bump: () => count.value++ })
    useTool({
      name: 'count',
      description: 'Read the counter',
      hints: { readOnly: true },
      summary: () => `count is ${count.value}`,
      state: () => ({ count: count.value }),
      run: () => ({ status: 'ok', data: count.value }),
    })
    return () => h('p', String(count.value))
  },
})

const Changing = defineComponent({
  props: {
    name: { type: String, required: true },
    destructive: Boolean,
    schema: { type: Object as PropType<z.ZodType>, required: true },
  },
  setup(props) {
    useTool(() => ({
      name: props.name,
      description: 'Do it',
      input: props.schema,
      hints: props.destructive ? { destructive: true } : { readOnly: true },
      run: () => undefined,
    }))
    return () => null
  },
})

afterEach(() => {
  vi.restoreAllMocks()
})

describe('useTool', () => {
  it('registers on mount and disposes on unmount, once each, in one notification each', async () => {
    const { tm, errors, render } = setup()
    const revs: number[] = []
    tm.subscribe((rev) => revs.push(rev))
    const wrapper = render(SearchTool)
    expect(names(tm)).toEqual(['search'])
    await flush()
    expect(revs).toHaveLength(1)
    wrapper.unmount()
    expect(names(tm)).toEqual([])
    await flush()
    expect(revs).toHaveLength(2)
    expect(errors).toEqual([])
  })

  it('uses the latest run, summary and state without re-registering or bumping rev', async () => {
    const { tm, render } = setup()
    const wrapper = render(Counter)
    await flush()
    const rev = tm.rev
    ;(wrapper.vm as unknown as { bump(): void }).bump()
    ;(wrapper.vm as unknown as { bump(): void }).bump()
    await flush()
    expect(wrapper.text()).toBe('2')
    expect(tm.rev).toBe(rev)
    expect(await tm.call('count', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 2 })
    expect(tm.state('count')).toEqual({ count: 2 })
  })

  it('re-registers when a getter definition changes name, hints or schema, not for equal hints', async () => {
    const { tm, errors, render } = setup()
    const other = z.object({ id: z.number() })
    const wrapper = render(Changing, { name: 'a', destructive: false, schema: Search })
    await flush()
    const rev = tm.rev
    await wrapper.setProps({ name: 'a', destructive: false, schema: Search })
    await flush()
    expect(tm.rev).toBe(rev)
    await wrapper.setProps({ name: 'b' })
    await flush()
    expect(names(tm)).toEqual(['b'])
    await wrapper.setProps({ destructive: true })
    expect(tm.manifest().tools[0]?.hints).toEqual({ destructive: true })
    await wrapper.setProps({ schema: other })
    expect(tm.describe('b')?.inputSchema).toMatchObject({ properties: { id: { type: 'number' } } })
    expect(errors).toEqual([])
  })

  it('hands run the validated input and redacts sensitive paths in state', async () => {
    const { tm, render } = setup()
    const run = vi.fn((input: { query: string }) => ({
      status: 'ok' as const,
      data: input.query.toUpperCase(),
    }))
    const form = ref({ user: 'ada', password: 'hunter2' })
    render(
      defineComponent({
        setup() {
          useTool({ name: 'search', description: 'Search', input: Search, hints: { readOnly: true }, run })
          useTool({
            name: 'login',
            description: 'Log in',
            hints: { consequential: true },
            sensitivePaths: ['password'],
            state: () => form.value,
            run: () => undefined,
          })
          return () => null
        },
      }),
    )
    expect(await tm.call('search', { query: 'robots' }, { caller: 'inapp' })).toEqual({
      status: 'ok',
      data: 'ROBOTS',
    })
    expect((await tm.call('search', { query: 1 }, { caller: 'inapp' })).status).toBe('invalid')
    expect(run).toHaveBeenCalledTimes(1)
    expect(tm.state('login')).toEqual({ user: 'ada', password: '[redacted]' })
  })

  it('ties an element to the tool anchor with useToolAnchor', async () => {
    const { tm, render } = setup()
    const show = ref(true)
    render(
      defineComponent({
        setup() {
          const anchor = useToolAnchor<HTMLButtonElement>()
          useTool({
            name: 'save',
            description: 'Save',
            hints: { consequential: true },
            anchors: { tool: anchor.target },
            run: () => undefined,
          })
          return () => (show.value ? h('button', { ref: anchor.ref }, 'Save') : null)
        },
      }),
    )
    expect(tm.anchor('save')?.textContent).toBe('Save')
    show.value = false
    await flush()
    expect(tm.anchor('save')).toBeNull()
  })

  it('registers at once in a bare effectScope and disposes when the scope stops', () => {
    const tm = createTestToolmark()
    const scope = effectScope()
    const app = mount(defineComponent({ render: () => null }), {
      global: { plugins: [[ToolmarkPlugin, { toolmark: tm }]] },
    })
    app.vm.$.appContext.app.runWithContext(() =>
      scope.run(() =>
        useTool({ name: 'bare', description: 'Bare', hints: { readOnly: true }, run: () => undefined }),
      ),
    )
    expect(names(tm)).toEqual(['bare'])
    scope.stop()
    expect(names(tm)).toEqual([])
  })

  it('warns in development when used outside a component or effect scope', () => {
    const tm = createTestToolmark()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const app = mount(defineComponent({ render: () => null }), {
      global: { plugins: [[ToolmarkPlugin, { toolmark: tm }]] },
    })
    app.vm.$.appContext.app.runWithContext(() =>
      useTool({ name: 'loose', description: 'Loose', hints: { readOnly: true }, run: () => undefined }),
    )
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('useTool() was called outside a component setup()'),
    )
    expect(names(tm)).toEqual(['loose'])
  })
})

describe('useToolmark and ToolmarkPlugin', () => {
  it('throws clear errors outside setup and without a provided instance', () => {
    expect(() => useToolmark()).toThrow(NO_INJECTION_CONTEXT)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(() => mount(SearchTool)).toThrow(NO_TOOLMARK)
    warn.mockRestore()
  })

  it('provides a registry to a subtree with provideToolmark', () => {
    const tm = createTestToolmark()
    mount(
      defineComponent({
        setup() {
          provideToolmark(tm)
          return () => h(SearchTool)
        },
      }),
    )
    expect(names(tm)).toEqual(['search'])
  })

  it('attaches consumers until the app unmounts', () => {
    let active = 0
    const consumer: ToolmarkConsumer = () => {
      active++
      return () => {
        active--
      }
    }
    const { render } = setup()
    const wrapper = render(SearchTool, {}, [consumer])
    expect(active).toBe(1)
    wrapper.unmount()
    expect(active).toBe(0)
  })

  it('follows a scope passed explicitly as a ref, waiting while it is null', async () => {
    const { tm, render } = setup()
    const scope = shallowRef<ReturnType<typeof tm.scope> | null>(null)
    render(
      defineComponent({
        setup() {
          useTool({ name: 'x', description: 'x', hints: { readOnly: true }, run: () => undefined }, { scope })
          return () => null
        },
      }),
    )
    expect(names(tm)).toEqual([])
    scope.value = tm.scope('later')
    expect(names(tm)).toEqual(['later.x'])
  })
})
