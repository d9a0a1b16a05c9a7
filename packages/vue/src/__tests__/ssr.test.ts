import { createToolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSSRApp, defineComponent, h } from 'vue'
import { renderToString } from 'vue/server-renderer'
import {
  ConfirmationCard,
  ToolmarkPlugin,
  useManifest,
  usePendingConfirmations,
  useScope,
  useTool,
  useToolAnchor,
  useToolmarkContext,
} from '../index.ts'

const Tool = defineComponent({
  setup() {
    const anchor = useToolAnchor()
    useTool({
      name: 'search',
      description: 'Search',
      hints: { readOnly: true },
      anchors: { tool: anchor.target },
      run: () => undefined,
    })
    useToolmarkContext({ name: 'query', description: 'The search query', value: 'shoes' })
    return () => h('button', { ref: anchor.ref }, 'Search')
  },
})

const Settings = defineComponent({
  setup() {
    useScope('settings', { when: () => true })
    return () => h(Tool)
  },
})

const Page = defineComponent({
  setup() {
    const manifest = useManifest()
    const { items } = usePendingConfirmations()
    return () =>
      h('main', [
        h('p', `tools: ${manifest.value.tools.length}`),
        ...items.value.map((item) => h(ConfirmationCard, { key: item.confirmId, confirmation: item })),
        h(Tool),
        h(Settings),
      ])
  },
})

describe('server rendering', () => {
  beforeEach(() => {
    environment.setIsServer(true)
  })
  afterEach(() => {
    environment.setIsServer(undefined)
  })

  it('renders while registering nothing, attaching nothing and throwing nothing', async () => {
    const tm = createToolmark({ dev: true })
    const consumer = vi.fn(() => undefined)
    const errors = vi.fn()
    tm.events.on('error', errors)
    const subscribe = vi.spyOn(tm, 'subscribe')
    const context = vi.spyOn(tm, 'context')
    const on = vi.spyOn(tm.events, 'on')
    const warn = vi.spyOn(console, 'warn')
    const app = createSSRApp(Page).use(ToolmarkPlugin, { toolmark: tm, consumers: [consumer] })
    const html = await renderToString(app)
    expect(html).toContain('tools: 0')
    expect(html).toContain('<button>Search</button>')
    expect(tm.manifest().tools).toEqual([])
    expect(tm.rev).toBe(0)
    expect(consumer).not.toHaveBeenCalled()
    expect(subscribe).not.toHaveBeenCalled()
    expect(context).not.toHaveBeenCalled()
    expect(on).not.toHaveBeenCalled()
    expect(errors).not.toHaveBeenCalled()
    expect(warn).not.toHaveBeenCalled()
  })
})
