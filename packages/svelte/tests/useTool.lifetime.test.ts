import { isToolmarkError } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
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
