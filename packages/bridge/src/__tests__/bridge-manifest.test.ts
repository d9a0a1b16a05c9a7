/**
 * The bridge's manifest: sent on attach and on every revision.
 */

import { ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { createTestToolmark } from '@toolmark/core/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import { CLIENT, createTool, type Msg, page, readTool, tick } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('manifest on attach and on every revision', () => {
  it('the attach manifest carries rev and the summaries visible to inapp only', async () => {
    const tm = createTestToolmark({ dev: false, policy: { inapp: ['readOnly', 'consequential'] } })
    readTool(tm)
    createTool(tm)
    tm.register({ name: 'wipe', description: 'Wipe', hints: { destructive: true }, run: () => ok() })
    tm.scope('hidden', { when: false }).register({
      name: 'x',
      description: 'X',
      hints: { readOnly: true },
      run: () => ok(),
    })
    await tick()
    const { transport, agent } = createInPageChannel()
    const received: Msg[] = []
    agent.onMessage((m) => received.push(m as Msg))
    tm.use(bridge({ transport, clientId: CLIENT }))
    await tick()
    expect(received).toEqual([
      {
        protocol: 1,
        type: 'manifest',
        clientId: CLIENT,
        rev: tm.rev,
        tools: [
          { name: 'create', llmName: 'create', description: 'Create', hints: { consequential: true } },
          { name: 'search', llmName: 'search', description: 'Search', hints: { readOnly: true } },
        ],
      },
    ])
  })

  it("onChange 'changed' still sends the manifest on attach, then only { rev } per revision", async () => {
    const { tm, received } = page({}, { onChange: 'changed' })
    await tick()
    expect(received).toEqual([{ protocol: 1, type: 'manifest', clientId: CLIENT, rev: 0, tools: [] }])
    readTool(tm)
    createTool(tm)
    await tick()
    expect(received.slice(1)).toEqual([{ protocol: 1, type: 'changed', clientId: CLIENT, rev: 2 }])
  })

  it('a burst of registrations sends one manifest with the final rev', async () => {
    const { tm, received } = page()
    for (let i = 0; i < 10; i++)
      tm.register({ name: `t${i}`, description: 'd', hints: { readOnly: true }, run: () => ok() })
    await tick()
    const manifests = received.filter((m) => m.type === 'manifest')
    expect(manifests.map((m) => m.rev)).toEqual([0, 10])
  })

  it('only caller inapp is accepted at creation', () => {
    const { transport } = createInPageChannel()
    for (const caller of ['webmcp', 'mcp', 'tour', 'test', 'human', 'INAPP']) {
      expect(() => bridge({ transport, caller: caller as never })).toThrow()
    }
    expect(() => bridge({ transport, caller: 'inapp' })).not.toThrow()
  })
})
