import { act } from '@testing-library/react'
import { isToolmarkError, ok } from '@toolmark/core'
import { Component, type ReactNode, useState } from 'react'
import { afterEach, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { ToolScope, useTool } from '../index.ts'
import { describeEachReactMode, flush, names, setup } from './utils.tsx'

function Search({ label }: { label: string }) {
  useTool({
    name: 'search',
    description: 'Search',
    hints: { readOnly: true },
    run: () => ok(label),
  })
  return null
}

let relabel: (label: string) => void = () => {}
/** An inline schema and a summary built from state: each render hands useTool new objects. */
function InlinePublish() {
  const [label, setLabel] = useState('a')
  relabel = setLabel
  useTool({
    name: 'publish',
    description: 'Publish',
    input: z.object({ name: z.string().min(1) }),
    hints: { consequential: true },
    summary: `Publish as ${label}`,
    run: ({ name }) => ok({ published: name, label }),
  })
  return null
}

class Boundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: undefined as unknown }
  static getDerivedStateFromError(error: unknown) {
    return { error }
  }
  override render() {
    const { error } = this.state
    if (error === undefined) return this.props.children
    return <p>{isToolmarkError(error) ? error.code : 'other'}</p>
  }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describeEachReactMode('useTool: inline schemas', ({ render }) => {
  it('keeps the registration, rev and pending confirmation when an equal schema is rebuilt', async () => {
    const { tm, wrap } = setup()
    render(wrap(<InlinePublish />))
    await flush()
    const asked = await act(() => tm.call('publish', { name: 'x' }, { caller: 'inapp' }))
    const confirmId = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    const rev = tm.rev
    const notified: number[] = []
    tm.subscribe((r) => notified.push(r))
    act(() => relabel('b'))
    await flush()
    expect(tm.rev).toBe(rev)
    expect(notified).toEqual([])
    expect(tm.pendingConfirmations().map((p) => p.confirmId)).toEqual([confirmId])
    expect(await act(() => tm.confirmPending(confirmId, { approved: true }))).toEqual({
      status: 'ok',
      data: { published: 'x', label: 'b' },
    })
    // The latest schema object still validates (here its `.min(1)`).
    expect((await tm.call('publish', { name: '' }, { caller: 'human' })).status).toBe('invalid')
  })
})

describeEachReactMode('useTool: a taken name', ({ render }) => {
  it('registers the second declaration when the first unmounts (production)', async () => {
    const { tm, errors, wrap } = setup({ dev: false })
    const view = render(
      wrap(
        <>
          <Search key="a" label="first" />
          <Search key="b" label="second" />
        </>,
      ),
    )
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(errors).toContain('error:duplicate_name')
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'first' })
    view.rerender(wrap(<Search key="b" label="second" />))
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'second' })
    view.unmount()
    await flush()
    expect(names(tm)).toEqual([])
  })

  it('throws duplicate_name to the nearest error boundary in development', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { tm, wrap } = setup()
    const view = render(
      wrap(
        <>
          <Search label="first" />
          <Boundary>
            <Search label="second" />
          </Boundary>
        </>,
      ),
    )
    await flush()
    expect(view.container.textContent).toBe('duplicate_name')
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'first' })
  })
})

describeEachReactMode('useScope: a bad name', ({ render }) => {
  it('throws invalid_name to the nearest error boundary in development', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { wrap } = setup()
    const view = render(
      wrap(
        <Boundary>
          <ToolScope name="bad name">
            <Search label="x" />
          </ToolScope>
        </Boundary>,
      ),
    )
    await flush()
    expect(view.container.textContent).toBe('invalid_name')
  })

  it('reports invalid_name and registers none of its tools in production', async () => {
    const { tm, errors, wrap } = setup({ dev: false })
    render(
      wrap(
        <ToolScope name="bad name">
          <Search label="x" />
        </ToolScope>,
      ),
    )
    await flush()
    expect(errors).toContain('error:invalid_name')
    expect(names(tm)).toEqual([])
  })
})
