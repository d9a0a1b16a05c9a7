import { describe, expect, it } from 'vitest'
import { defineComponent, h, type PropType, ref, watch } from 'vue'
import { type Manifest, useManifest, useTool } from '../index.ts'
import { flush, setup } from './utils.ts'

const Tool = defineComponent({
  props: { name: { type: String, required: true }, readOnly: Boolean },
  setup(props) {
    useTool({
      name: props.name,
      description: props.name,
      hints: props.readOnly ? { readOnly: true } : { consequential: true },
      run: () => undefined,
    })
    return () => null
  },
})

const Names = defineComponent({
  props: {
    caller: { type: String as PropType<'webmcp'>, default: undefined },
    seen: { type: Array as PropType<Manifest[]>, default: () => [] },
  },
  setup(props) {
    const manifest = useManifest(() => (props.caller ? { caller: props.caller } : {}))
    watch(manifest, (m) => props.seen.push(m), { immediate: true })
    return () =>
      h(
        'ul',
        manifest.value.tools.map((t) => h('li', { key: t.name }, t.name)),
      )
  },
})

describe('useManifest', () => {
  it('updates once per revision and stops listening on unmount', async () => {
    const { tm, render } = setup()
    const count = ref(0)
    const seen: Manifest[] = []
    const wrapper = render(
      defineComponent({
        setup: () => () => [
          ...Array.from({ length: count.value }, (_, i) =>
            h(Tool, { key: `t${i}`, name: `t${i}`, readOnly: true }),
          ),
          h(Names, { seen }),
        ],
      }),
    )
    count.value = 3
    await flush()
    expect(wrapper.findAll('li').map((li) => li.text())).toEqual(['t0', 't1', 't2'])
    expect(seen.map((m) => m.rev)).toEqual([0, tm.rev])
    wrapper.unmount()
    tm.register({ name: 'later', description: 'later', hints: { readOnly: true }, run: () => undefined })
    await flush()
    expect(seen).toHaveLength(2)
  })

  it('filters for a caller', async () => {
    const { render } = setup({ policy: { webmcp: ['readOnly'] } })
    const wrapper = render(
      defineComponent({
        setup: () => () => [
          h(Tool, { name: 'read', readOnly: true }),
          h(Tool, { name: 'write' }),
          h(Names, { caller: 'webmcp' }),
        ],
      }),
    )
    await flush()
    expect(wrapper.findAll('li').map((li) => li.text())).toEqual(['read'])
  })
})
