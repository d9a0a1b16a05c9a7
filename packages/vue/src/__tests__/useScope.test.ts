import { describe, expect, it } from 'vitest'
import { defineComponent, h, ref } from 'vue'
import { recordRegistrations } from '../../../../tests/support/registrations.ts'
import { useCurrentScope, useScope, useTool } from '../index.ts'
import { flush, names, setup } from './utils.ts'

const Tool = defineComponent({
  props: { name: { type: String, required: true } },
  setup(props) {
    useTool({ name: props.name, description: props.name, hints: { readOnly: true }, run: () => undefined })
    return () => null
  },
})

const Profile = defineComponent({
  setup(_, { slots }) {
    useScope('profile')
    return () => slots.default?.()
  },
})

const Settings = defineComponent({
  props: { when: { type: Boolean, default: true } },
  setup(props) {
    useScope('settings', { when: () => props.when })
    return () => [h(Tool, { name: 'save' }), h(Profile, () => h(Tool, { name: 'rename' }))]
  },
})

const Page = defineComponent({
  props: { open: Boolean, when: { type: Boolean, default: true } },
  setup(props) {
    return () => (props.open ? h(Settings, { when: props.when }) : h(Tool, { name: 'home' }))
  },
})

/** Shows the scope above it: its path, `root`, or `waiting` while it does not exist yet. */
const Where = defineComponent({
  setup() {
    const scope = useCurrentScope()
    return () =>
      h('p', scope.value === undefined ? 'root' : scope.value === null ? 'waiting' : scope.value.path)
  },
})

describe('useCurrentScope', () => {
  it('is the scope an ancestor provides, null until it exists, undefined at the root', async () => {
    const { render } = setup()
    const seen: string[] = []
    const Probe = defineComponent({
      setup() {
        const scope = useCurrentScope()
        seen.push(scope.value === null ? 'waiting' : String(scope.value))
        return () => h(Where)
      },
    })
    const wrapper = render(defineComponent(() => () => [h(Profile, () => h(Probe)), h(Where)]))
    await flush()
    expect(seen).toEqual(['waiting'])
    expect(wrapper.findAll('p').map((p) => p.text())).toEqual(['profile', 'root'])
  })

  it('throws outside setup()', () => {
    expect(() => useCurrentScope()).toThrow('useCurrentScope() can only be used inside setup()')
  })
})

describe('useScope', () => {
  it("names descendants' tools after the scope and removes them all on navigation away", async () => {
    const { tm, errors, render } = setup()
    const wrapper = render(Page, { open: true })
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
    await wrapper.setProps({ open: false })
    expect(names(tm)).toEqual(['home'])
    await wrapper.setProps({ open: true })
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
    expect(errors).toEqual([])
  })

  it('never registers a scoped tool at the root while the scope is being created', async () => {
    const { tm, render } = setup()
    const seen = new Set<string>()
    tm.subscribe(() => {
      for (const n of names(tm)) seen.add(n)
    })
    const registered = recordRegistrations(tm)
    render(Page, { open: true })
    await flush()
    expect(registered.sort()).toEqual(['settings.profile.rename', 'settings.save'])
    expect([...seen].sort()).toEqual(['settings.profile.rename', 'settings.save'])
  })

  it('follows a reactive `when`', async () => {
    const { tm, render } = setup()
    const wrapper = render(Page, { open: true, when: false })
    await flush()
    expect(names(tm)).toEqual([])
    await wrapper.setProps({ when: true })
    await flush()
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
  })

  it('recreates the scope when a reactive name changes', async () => {
    const { tm, render } = setup()
    const section = ref('billing')
    render(
      defineComponent({
        setup() {
          useScope(section)
          return () => h(Tool, { name: 'save' })
        },
      }),
    )
    expect(names(tm)).toEqual(['billing.save'])
    section.value = 'shipping'
    await flush()
    expect(names(tm)).toEqual(['shipping.save'])
  })
})

describe('swapping one scoped page for another', () => {
  it("publishes one manifest, with the new page's tools", async () => {
    const { tm, render } = setup()
    const Board = defineComponent({
      setup() {
        useScope('board')
        return () => [h(Tool, { name: 'search' }), h(Tool, { name: 'create' })]
      },
    })
    const Swap = defineComponent({
      props: { page: { type: String, required: true } },
      setup(props) {
        return () => [h(Tool, { name: 'help' }), props.page === 'board' ? h(Board) : h(Settings)]
      },
    })
    const wrapper = render(Swap, { page: 'board' })
    await flush()
    const published: string[][] = []
    tm.subscribe(() => published.push(names(tm)))
    await wrapper.setProps({ page: 'settings' })
    await flush()
    expect(published).toEqual([['help', 'settings.profile.rename', 'settings.save']])
    published.length = 0
    await wrapper.setProps({ page: 'board' })
    await flush()
    expect(published).toEqual([['board.create', 'board.search', 'help']])
  })
})
