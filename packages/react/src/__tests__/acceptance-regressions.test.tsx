// Issue 6 sentences the React adapter does not meet yet (kept out of the suite; see the report).
import { act } from '@testing-library/react'
import { useState } from 'react'
import { expect, it } from 'vitest'
import * as z from 'zod'
import { useTool } from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

let bump: () => void = () => {}
/** The README-style component: the schema is written inline in the hook call. */
function InlineSchema() {
  const [count, setCount] = useState(0)
  bump = () => setCount((c) => c + 1)
  useTool({
    name: 'search',
    description: 'Search',
    input: z.object({ q: z.string() }),
    hints: { readOnly: true },
    run: ({ q }) => ({ status: 'ok', data: `${q}:${count}` }),
  })
  return null
}

describeEachReactMode('inline schemas', ({ render }) => {
  // "a new `run` closure on each render neither re-registers nor bumps `rev`; it re-registers only
  // when the name, scope, hints or schema change": an inline schema with the same shape is no change.
  it('does not re-register or bump rev when an inline schema of the same shape is re-created', async () => {
    const { tm, wrap } = setup()
    render(wrap(<InlineSchema />))
    await flush()
    const rev = tm.rev
    act(() => bump())
    act(() => bump())
    await flush()
    expect(tm.rev).toBe(rev)
  })

  // "useScope(name, { when }): a scope for a component subtree, disposed with it, given to
  // descendants' useTool automatically".
})

let bumpPublish: () => void = () => {}
function InlinePublish() {
  const [, setCount] = useState(0)
  bumpPublish = () => setCount((c) => c + 1)
  useTool({
    name: 'publish',
    description: 'Publish',
    input: z.object({ name: z.string() }),
    hints: { consequential: true },
    summary: 'Publish it',
    run: () => ({ status: 'ok', data: 'published' }),
  })
  return null
}

describeEachReactMode('inline schemas keep pending confirmations', ({ render }) => {
  // Consequence of the inline-schema re-registration: any re-render drops the tool's pending
  // confirmations (scope disposal), although the component never unmounted.
  it('keeps a pending confirmation across a re-render of a component with an inline schema', async () => {
    const { tm, wrap } = setup()
    render(wrap(<InlinePublish />))
    await flush()
    await act(() => tm.call('publish', { name: 'x' }, { caller: 'inapp' }))
    expect(tm.pendingConfirmations()).toHaveLength(1)
    act(() => bumpPublish())
    await flush()
    expect(tm.pendingConfirmations()).toHaveLength(1)
  })
})
