import { act, screen } from '@testing-library/react'
import { useState } from 'react'
import { expect, it, vi } from 'vitest'
import * as z from 'zod'
import { type ToolDefinition, useTool, useToolAnchor } from '../index.ts'
import { describeEachReactMode, flush, names, setup } from './utils.tsx'

const Search = z.object({ query: z.string() })
const ById = z.object({ id: z.number() })

function SearchTool() {
  useTool({ name: 'search', description: 'Search', hints: { readOnly: true }, run: () => undefined })
  return null
}

let bump: () => void = () => {}
function Counter() {
  const [count, setCount] = useState(0)
  bump = () => setCount((c) => c + 1)
  useTool({
    name: 'count',
    description: 'Read the counter',
    hints: { readOnly: true },
    summary: () => `count is ${count}`,
    state: () => ({ count }),
    run: () => ({ status: 'ok', data: count }),
  })
  return <p>{count}</p>
}

function Changing(props: { name: string; destructive: boolean; schema: z.ZodType }) {
  useTool({
    name: props.name,
    description: 'Do it',
    input: props.schema,
    hints: props.destructive ? { destructive: true } : { readOnly: true },
    run: () => undefined,
  })
  return null
}

function Validated({ run }: { run: (input: { query: string }) => { status: 'ok'; data: string } }) {
  useTool({ name: 'search', description: 'Search', input: Search, hints: { readOnly: true }, run })
  return null
}

function Login() {
  const [form] = useState({ user: 'ada', password: 'hunter2' })
  useTool({
    name: 'login',
    description: 'Log in',
    hints: { consequential: true },
    sensitivePaths: ['password'],
    state: () => form,
    run: () => undefined,
  })
  return null
}

const numbered = (n: number): ToolDefinition<undefined, number> => ({
  name: 'n',
  description: 'n',
  hints: { readOnly: true },
  run: () => ({ status: 'ok', data: n }),
})
function Numbered({ n }: { n: number }) {
  useTool(numbered(n))
  return null
}

function Anchored({ show }: { show: boolean }) {
  const anchor = useToolAnchor<HTMLButtonElement>()
  useTool({
    name: 'save',
    description: 'Save',
    hints: { consequential: true },
    anchors: { tool: anchor.target },
    run: () => undefined,
  })
  return show ? (
    <button type="button" ref={anchor.ref}>
      Save
    </button>
  ) : null
}

describeEachReactMode('useTool', ({ render }) => {
  it('registers on mount and disposes on unmount, exactly once, in one notification each', async () => {
    const { tm, errors, wrap } = setup()
    const revs: number[] = []
    tm.subscribe((rev) => revs.push(rev))
    const view = render(wrap(<SearchTool />))
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(revs).toHaveLength(1)
    view.unmount()
    await flush()
    expect(names(tm)).toEqual([])
    expect(revs).toHaveLength(2)
    expect(errors).toEqual([])
  })

  it('uses the latest run, summary and state closures without re-registering or bumping rev', async () => {
    const { tm, wrap } = setup()
    render(wrap(<Counter />))
    await flush()
    const rev = tm.rev
    act(() => bump())
    act(() => bump())
    await flush()
    expect(screen.getByText('2')).toBeTruthy()
    expect(tm.rev).toBe(rev)
    expect(await tm.call('count', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 2 })
    expect(tm.state('count')).toEqual({ count: 2 })
  })

  it('re-registers when the name, hints or schema change, and not for equal inline hints', async () => {
    const { tm, errors, wrap } = setup()
    const view = render(wrap(<Changing name="a" destructive={false} schema={Search} />))
    await flush()
    const rev = tm.rev
    view.rerender(wrap(<Changing name="a" destructive={false} schema={Search} />))
    await flush()
    expect(tm.rev).toBe(rev)
    view.rerender(wrap(<Changing name="b" destructive={false} schema={Search} />))
    await flush()
    expect(names(tm)).toEqual(['b'])
    view.rerender(wrap(<Changing name="b" destructive schema={Search} />))
    await flush()
    expect(tm.manifest().tools[0]?.hints).toEqual({ destructive: true })
    view.rerender(wrap(<Changing name="b" destructive schema={ById} />))
    await flush()
    expect(tm.describe('b')?.inputSchema).toMatchObject({ properties: { id: { type: 'number' } } })
    expect(errors).toEqual([])
  })

  it('hands run the input validated by the schema', async () => {
    const { tm, wrap } = setup()
    const run = vi.fn((input: { query: string }) => ({
      status: 'ok' as const,
      data: input.query.toUpperCase(),
    }))
    render(wrap(<Validated run={run} />))
    await flush()
    expect(await tm.call('search', { query: 'robots' }, { caller: 'inapp' })).toEqual({
      status: 'ok',
      data: 'ROBOTS',
    })
    expect((await tm.call('search', { query: 1 }, { caller: 'inapp' })).status).toBe('invalid')
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('reads state from component state with sensitive paths redacted', async () => {
    const { tm, wrap } = setup()
    render(wrap(<Login />))
    await flush()
    expect(tm.state('login')).toEqual({ user: 'ada', password: '[redacted]' })
  })

  it('keeps one registration with the latest closure across many re-renders', async () => {
    const { tm, wrap } = setup()
    const view = render(wrap(<Numbered n={0} />))
    for (let n = 1; n <= 5; n++) view.rerender(wrap(<Numbered n={n} />))
    await flush()
    expect(names(tm)).toEqual(['n'])
    expect(await tm.call('n', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 5 })
  })

  it('ties an element to the tool anchor with useToolAnchor', async () => {
    const { tm, wrap } = setup()
    const view = render(wrap(<Anchored show />))
    await flush()
    expect(tm.anchor('save')).toBe(screen.getByRole('button', { name: 'Save' }))
    const rev = tm.rev
    view.rerender(wrap(<Anchored show={false} />))
    await flush()
    expect(tm.anchor('save')).toBeNull()
    expect(tm.rev).toBe(rev)
  })
})
