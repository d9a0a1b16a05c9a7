import type { ContextSnapshot } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import { defineComponent, reactive } from 'vue'
import { useScope, useToolmarkContext } from '../index.ts'
import { flush, setup } from './utils.ts'

describe('useToolmarkContext', () => {
  it('declares the entry while mounted, in the nearest scope, masked; a deep change reaches consumers once', async () => {
    const { tm, render } = setup()
    const seen: ContextSnapshot[] = []
    tm.use((host) => host.watchContext({ caller: 'mcp' }, (c) => seen.push(c)))
    const selection = reactive({ ids: [1], token: 'secret' })
    const view = render(
      defineComponent({
        setup() {
          // useScope provides to descendants: this component passes its own scope explicitly.
          const scope = useScope('rows')
          useToolmarkContext(
            () => ({
              name: 'selection',
              description: 'Selected rows',
              value: selection,
              sensitivePaths: ['token'],
            }),
            { scope },
          )
          return () => null
        },
      }),
    )
    await flush()
    expect(tm.readContext().entries).toEqual([
      {
        name: 'rows.selection',
        description: 'Selected rows',
        value: { ids: [1], token: '[redacted]' },
        rev: 1,
      },
    ])
    selection.ids.push(2)
    await flush()
    selection.token = 'other secret'
    await flush()
    expect(seen.map((s) => s.entries.map((e) => e.value))).toEqual([
      [],
      [{ ids: [1], token: '[redacted]' }],
      [{ ids: [1, 2], token: '[redacted]' }],
    ])
    view.unmount()
    await flush()
    expect(tm.readContext().entries).toEqual([])
  })
})
