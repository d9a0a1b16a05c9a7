import type { ContextSnapshot } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import Selection from './fixtures/Selection.svelte'
import { flush, setup } from './utils.ts'

describe('useToolmarkContext', () => {
  it('declares the entry while mounted, in the nearest scope, masked; a new value reaches consumers once', async () => {
    const { tm, mount } = setup()
    const seen: ContextSnapshot[] = []
    tm.use((host) => host.watchContext({ caller: 'mcp' }, (c) => seen.push(c)))
    const view = mount(Selection, { ids: [1] })
    await flush()
    expect(tm.readContext().entries).toEqual([
      {
        name: 'rows.selection',
        description: 'Selected rows',
        value: { ids: [1], token: '[redacted]' },
        rev: 1,
      },
    ])
    await view.update({ ids: [1, 2] })
    await view.update({ ids: [1, 2] })
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
