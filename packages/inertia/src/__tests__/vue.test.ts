import { App, router } from '@inertiajs/vue3'
import { createToolmark, ok } from '@toolmark/core'
import { ToolmarkPlugin, usePendingConfirmations, useTool } from '@toolmark/vue'
import { mount } from '@vue/test-utils'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineComponent, h, nextTick } from 'vue'
import { bindInertia } from '../index.ts'
import { inertiaToolmark, pageScoped, withPageScope } from '../vue/index.ts'
import { settle } from './support/helpers.ts'
import { type InertiaTestServer, setPageUrl, startInertiaServer } from './support/inertia-server.ts'

/*
 * The real @inertiajs/vue3 3.7 <App> (and its router) in happy-dom with Vue 3.5, against the small
 * Inertia protocol server; tools registered through @toolmark/vue's public composables.
 */

let server: InertiaTestServer
let deleted = 0

const Layout = defineComponent({
  setup: function Layout(_, { slots }) {
    useTool({ name: 'chat.clear', description: 'Clear the chat', run: () => ok() })
    const pending = usePendingConfirmations()
    return () =>
      h('div', [
        ...pending.items.value.map((item) =>
          h('button', { key: item.confirmId, onClick: () => void item.approve() }, `Approve ${item.summary}`),
        ),
        slots.default?.(),
      ])
  },
})

const Index = Object.assign(
  defineComponent({
    props: { list: { type: Array, default: () => [] } },
    setup: function Index(props) {
      useTool({
        name: 'challenges.list',
        description: 'List',
        hints: { readOnly: true },
        run: () => ok(props.list),
      })
      useTool({
        name: 'challenges.delete',
        description: 'Delete',
        summary: 'Delete challenge 1',
        hints: { destructive: true },
        run: () => {
          deleted++
          return ok()
        },
      })
      return () => h('h1', `Index ${props.list.length}`)
    },
  }),
  { layout: Layout },
)

const Show = Object.assign(
  defineComponent({
    props: { id: { type: Number, required: true } },
    setup: function Show(props) {
      useTool({
        name: 'challenge.read',
        description: 'Read',
        hints: { readOnly: true },
        run: () => ok(props.id),
      })
      return () => h('h1', `Show ${props.id}`)
    },
  }),
  { layout: Layout },
)

const pages: Record<string, unknown> = { 'Challenges/Index': Index, 'Challenges/Show': { default: Show } }

beforeAll(async () => {
  server = await startInertiaServer({
    '/challenges': { component: 'Challenges/Index', props: { list: [1, 2] } },
    '/challenges/1': { component: 'Challenges/Show', props: { id: 1 } },
  })
  setPageUrl(`${server.url}/challenges`)
})
afterAll(() => server.close())

const initialPage = {
  component: 'Challenges/Index',
  props: { errors: {}, list: [1, 2] },
  url: '/challenges',
  version: '1',
  flash: {},
  rescuedProps: [],
  rememberedState: {},
}

describe('@toolmark/inertia/vue', () => {
  it('page tools live in the page scope, layout tools in the layout scope; a visit swaps only the page’s; cards approve', async () => {
    const tm = createToolmark()
    const binding = bindInertia(tm, { router, initialPage })
    const resolve = pageScoped((name: string) => pages[name] as never)
    const wrapper = mount(
      defineComponent({
        setup: () => () =>
          h(App as never, {
            initialPage,
            initialComponent: withPageScope(Index),
            resolveComponent: resolve,
          }),
      }),
      {
        global: { plugins: [[ToolmarkPlugin, { toolmark: tm }], inertiaToolmark(binding)] },
        attachTo: document.body,
      },
    )
    await settle(nextTick)
    const names = () => tm.manifest().tools.map((t) => t.name)
    expect(names()).toEqual(['challenges.delete', 'challenges.list', 'chat.clear', 'navigate'])

    const asked = await tm.call('challenges.delete', {}, { caller: 'inapp' })
    expect(asked.status).toBe('needs_confirmation')
    await settle(nextTick)
    await wrapper.get('button').trigger('click')
    await settle(nextTick)
    expect(deleted).toBe(1)

    const index = binding.page
    expect(await tm.call('navigate', { url: '/challenges/1' }, { caller: 'inapp' })).toMatchObject({
      status: 'ok',
    })
    await settle(nextTick)
    expect(wrapper.get('h1').text()).toBe('Show 1')
    expect(names()).toEqual(['challenge.read', 'chat.clear', 'navigate'])
    expect(index?.disposed).toBe(true)
    binding.page?.dispose()
    await settle(nextTick)
    expect(names()).toEqual(['chat.clear', 'navigate'])
    wrapper.unmount()
    binding.dispose()
  })
})
