import { isToolmarkError } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import BadScopePage from './fixtures/BadScopePage.svelte'
import InlinePublish from './fixtures/InlinePublish.svelte'
import TakenName from './fixtures/TakenName.svelte'
import { flush, names, setup } from './utils.ts'

describe('useTool: inline schemas', () => {
  it('keeps the registration, rev and pending confirmation when a getter rebuilds an equal schema', async () => {
    const { tm, mount } = setup()
    const view = mount(InlinePublish, { label: 'a' })
    await flush()
    const asked = await tm.call('publish', { name: 'x' }, { caller: 'inapp' })
    const confirmId = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    expect(tm.pendingConfirmations()[0]?.summary).toBe('Publish as a')
    const rev = tm.rev
    const notified: number[] = []
    tm.subscribe((r) => notified.push(r))
    await view.update({ label: 'b' })
    await view.update({ label: 'c' })
    expect(tm.rev).toBe(rev)
    expect(notified).toEqual([])
    expect(tm.pendingConfirmations().map((p) => p.confirmId)).toEqual([confirmId])
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual({
      status: 'ok',
      data: { published: 'x', label: 'c' },
    })
    expect((await tm.call('publish', { name: '' }, { caller: 'human' })).status).toBe('invalid')
  })
})

describe('useTool: a taken name', () => {
  it('registers the second declaration when the first unmounts (production)', async () => {
    const { tm, errors, mount } = setup({ dev: false })
    const view = mount(TakenName, { first: true })
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(errors).toContain('error:duplicate_name')
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'first' })
    await view.update({ first: false })
    await flush()
    expect(names(tm)).toEqual(['search'])
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'second' })
    view.unmount()
    await flush()
    expect(names(tm)).toEqual([])
  })

  it('throws duplicate_name to the nearest <svelte:boundary> in development', async () => {
    const { tm, mount } = setup()
    const caught: unknown[] = []
    mount(TakenName, { first: true, onerror: (error: unknown) => caught.push(error) })
    await flush()
    expect(caught).toHaveLength(1)
    expect(isToolmarkError(caught[0]) && caught[0].code).toBe('duplicate_name')
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'first' })
  })
})

describe('useScope: a bad name', () => {
  it('throws invalid_name to the nearest <svelte:boundary> in development', async () => {
    const { mount } = setup()
    const caught: unknown[] = []
    mount(BadScopePage, { onerror: (error: unknown) => caught.push(error) })
    await flush()
    expect(isToolmarkError(caught[0]) && caught[0].code).toBe('invalid_name')
  })

  it('reports invalid_name and registers none of its tools in production', async () => {
    const { tm, errors, mount } = setup({ dev: false })
    mount(BadScopePage)
    await flush()
    expect(errors).toContain('error:invalid_name')
    expect(names(tm)).toEqual([])
  })
})
