import { ok } from '@toolmark/core'
import { createGrantStore } from '@toolmark/core/grants'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import { tick } from './helpers.ts'

/** `bridge({ conversation })`: every call over the bridge carries the conversation the page bound it to. */
function setup(conversation?: string) {
  const grants = createGrantStore()
  const tm = createTestToolmark({ dev: false, grants, confirmMode: { inapp: 'deferred' } })
  tm.register({
    name: 'notes.add',
    description: 'Add a note.',
    hints: { consequential: true },
    grantable: true,
    run: () => ok('added'),
  })
  const { transport, agent } = createInPageChannel()
  const results: Array<Record<string, unknown>> = []
  agent.onMessage((m) => {
    if ((m as { type?: string }).type === 'result')
      results.push((m as { result: Record<string, unknown> }).result)
  })
  tm.use(bridge({ transport, clientId: 'c', ...(conversation === undefined ? {} : { conversation }) }))
  let n = 0
  const call = async () => {
    agent.send({ protocol: 1, clientId: 'c', type: 'call', id: `id-${++n}`, tool: 'notes.add', input: {} })
    for (let i = 0; i < 20 && results.length < n; i++) await tick()
    return results[n - 1]
  }
  return { tm, grants, call }
}

describe('bridge({ conversation })', () => {
  it('an approval for this conversation lets the later calls of the bridge through', async () => {
    const { tm, grants, call } = setup('conv-1')
    const asked = await call()
    expect(asked).toMatchObject({ status: 'needs_confirmation' })
    expect(tm.pendingConfirmations()[0]?.conversation).toBe('conv-1')
    await tm.confirmPending(asked!.confirmId as string, { approved: true, remember: 'conversation' })
    expect(grants.list()).toMatchObject([{ tool: 'notes.add', caller: 'inapp', conversation: 'conv-1' }])
    expect(await call()).toEqual(ok('added'))
    // The same grant does not count in another conversation.
    expect(await tm.call('notes.add', {}, { caller: 'inapp', conversation: 'conv-2' })).toMatchObject({
      status: 'needs_confirmation',
    })
  })

  it('without it, "for this conversation" counts once', async () => {
    const { tm, grants, call } = setup()
    const asked = await call()
    expect(tm.pendingConfirmations()[0]?.conversation).toBeUndefined()
    await tm.confirmPending(asked!.confirmId as string, { approved: true, remember: 'conversation' })
    expect(grants.list()).toEqual([])
    expect(await call()).toMatchObject({ status: 'needs_confirmation' })
  })

  it('refuses a conversation id that is not a non-empty string of at most 256 characters', () => {
    const { transport } = createInPageChannel()
    for (const conversation of ['', 'x'.repeat(257), 7 as never])
      expect(() => bridge({ transport, conversation })).toThrow(TypeError)
  })
})
