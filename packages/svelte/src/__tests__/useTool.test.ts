import { fireEvent, render, screen } from '@testing-library/svelte'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { NO_TOOLMARK, type ToolmarkConsumer } from '../index.ts'
import Anchored from './fixtures/Anchored.svelte'
import Counter from './fixtures/Counter.svelte'
import Login from './fixtures/Login.svelte'
import Orphan from './fixtures/Orphan.svelte'
import Tool from './fixtures/Tool.svelte'
import { flush, names, setup } from './utils.ts'

const Search = z.object({ query: z.string() })
const ById = z.object({ id: z.number() })

describe('useTool', () => {
  it('registers after mount and disposes on unmount, once each, in one notification each', async () => {
    const { tm, errors, mount } = setup()
    const revs: number[] = []
    tm.subscribe((rev) => revs.push(rev))
    const view = mount(Tool, { name: 'search' })
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(revs).toHaveLength(1)
    view.unmount()
    await flush()
    expect(names(tm)).toEqual([])
    expect(revs).toHaveLength(2)
    expect(errors).toEqual([])
  })

  it('uses the latest run, summary and state without re-registering or bumping rev', async () => {
    const { tm, mount } = setup()
    mount(Counter)
    await flush()
    const rev = tm.rev
    await fireEvent.click(screen.getByRole('button'))
    await fireEvent.click(screen.getByRole('button'))
    await flush()
    expect(screen.getByRole('button').textContent).toBe('2')
    expect(tm.rev).toBe(rev)
    expect(await tm.call('count', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 2 })
    expect(tm.state('count')).toEqual({ count: 2 })
  })

  it('re-registers when a getter definition changes name, hints or schema, not otherwise', async () => {
    const { tm, errors, mount } = setup()
    const run = vi.fn()
    const view = mount(Tool, { name: 'a', schema: Search, run })
    await flush()
    const rev = tm.rev
    await view.update({ name: 'a', schema: Search, run: vi.fn() })
    expect(tm.rev).toBe(rev)
    await view.update({ name: 'b', schema: Search })
    expect(names(tm)).toEqual(['b'])
    await view.update({ name: 'b', schema: Search, destructive: true })
    expect(tm.manifest().tools[0]?.hints).toEqual({ destructive: true })
    await view.update({ name: 'b', schema: ById, destructive: true })
    expect(tm.describe('b')?.inputSchema).toMatchObject({ properties: { id: { type: 'number' } } })
    expect(errors).toEqual([])
  })

  it('hands run the validated input', async () => {
    const { tm, mount } = setup()
    const run = vi.fn((input: unknown) => (input as { query: string }).query.toUpperCase())
    mount(Tool, { name: 'search', schema: Search, run })
    await flush()
    expect(await tm.call('search', { query: 'robots' }, { caller: 'inapp' })).toEqual({
      status: 'ok',
      data: 'ROBOTS',
    })
    expect((await tm.call('search', { query: 1 }, { caller: 'inapp' })).status).toBe('invalid')
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('reads state from component state with sensitive paths redacted', async () => {
    const { tm, mount } = setup()
    mount(Login)
    await flush()
    expect(tm.state('login')).toEqual({ user: 'ada', password: '[redacted]' })
  })

  it('ties an element to the tool anchor with useToolAnchor', async () => {
    const { tm, mount } = setup()
    const view = mount(Anchored, { show: true })
    await flush()
    expect(tm.anchor('save')).toBe(screen.getByRole('button', { name: 'Save' }))
    const rev = tm.rev
    await view.update({ show: false })
    expect(tm.anchor('save')).toBeNull()
    expect(tm.rev).toBe(rev)
  })
})

describe('context and ToolmarkProvider', () => {
  it('throws a clear error without a provider', () => {
    expect(() => render(Orphan)).toThrow(NO_TOOLMARK)
  })

  it('attaches consumers while mounted and detaches them on destroy', async () => {
    let active = 0
    const consumer: ToolmarkConsumer = () => {
      active++
      return () => {
        active--
      }
    }
    const { mount } = setup()
    const view = mount(Tool, { name: 'x' }, [consumer])
    await flush()
    expect(active).toBe(1)
    view.unmount()
    expect(active).toBe(0)
  })
})
