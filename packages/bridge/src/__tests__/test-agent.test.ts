import { ok } from '@toolmark/core'
import { createTestAgent, createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import { tick } from './helpers.ts'

describe('createTestAgent', () => {
  it('sees the manifest, calls as inapp over the bridge, and records confirmed outcomes', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'create',
      description: 'Create',
      input: z.object({ name: z.string() }),
      hints: { consequential: true },
      run: ({ name }) => ok(name),
    })
    const { transport, agent: end } = createInPageChannel()
    tm.use(bridge({ transport }))
    const agent = createTestAgent(end)
    await tick()
    expect(agent.getState().tools).toEqual(['create'])
    const asked = await agent.call('create', { name: 'Robotics' })
    expect(asked.status).toBe('needs_confirmation')
    expect(agent.getState().lastResult).toBe('needs_confirmation')
    if (asked.status === 'needs_confirmation') await tm.confirmPending(asked.confirmId, { approved: true })
    await tick()
    expect(agent.getState().lastConfirmed).toBe('ok')
  })
})
