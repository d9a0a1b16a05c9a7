import type { ContextSnapshot } from '@toolmark/core'
import { useState } from 'react'
import { expect, it } from 'vitest'
import { ToolScope, useToolmarkContext } from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

let select: (ids: number[]) => void = () => {}
function Selection() {
  const [ids, setIds] = useState([1])
  select = setIds
  useToolmarkContext({
    name: 'selection',
    description: 'Selected rows',
    value: { ids, token: 'secret' },
    sensitivePaths: ['token'],
  })
  return null
}

describeEachReactMode('useToolmarkContext', ({ render }) => {
  it('declares the entry while mounted, in the nearest scope, masked; unmount removes it', async () => {
    const { tm, wrap } = setup()
    const view = render(
      wrap(
        <ToolScope name="rows">
          <Selection />
        </ToolScope>,
      ),
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
    view.unmount()
    await flush()
    expect(tm.readContext().entries).toEqual([])
  })

  it('hands new values to the registry; consumers hear each change once, never an equal re-render', async () => {
    const { tm, wrap } = setup()
    const seen: ContextSnapshot[] = []
    tm.use((host) => host.watchContext({ caller: 'mcp' }, (c) => seen.push(c)))
    const view = render(wrap(<Selection />))
    await flush()
    select([1, 2])
    await flush()
    view.rerender(wrap(<Selection />))
    select([1, 2])
    await flush()
    expect(seen.map((s) => s.entries.map((e) => e.value))).toEqual([
      [],
      [{ ids: [1], token: '[redacted]' }],
      [{ ids: [1, 2], token: '[redacted]' }],
    ])
  })
})
