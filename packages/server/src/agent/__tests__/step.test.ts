import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { testServer } from '../../__tests__/support/test-server.ts'

const list = fakeTool('zeta.list', 'List zetas', { readOnly: true }, { type: 'object' }, () => ({
  status: 'ok',
  data: ['z'],
}))

describe('one agent step', () => {
  it('reads the bound page once, and once more per page call only to check the call goes to that page load', async () => {
    const provider = new ScriptedProvider([
      () => [
        toolCall('c1', 'page_call', { tool: 'zeta.list', input: {} }),
        toolCall('c2', 'page_call', { tool: 'zeta.list', input: {} }),
      ],
      () => [{ type: 'text', delta: 'two zetas' }],
    ])
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const page = await FakePage.open(t.server.url, browser, conversation, [list])
    const reads = vi.spyOn(t.server.relay, 'page')
    onTestFinished(() => reads.mockRestore())

    await browser.say(conversation, 'list the zetas twice')
    await t.server.agent.idle(conversation)

    // Two steps: the first reads the page once (the wait for a loading page hands it over) and checks it again
    // before each of its two calls; the second step reads it once.
    expect(reads).toHaveBeenCalledTimes(4)
    expect(reads.mock.calls.every(([id]) => id === conversation)).toBe(true)
    // The calls carry the rev of the manifest the model saw: they went to that same page load.
    expect(page.calls.map((c) => [c.tool, c.rev])).toEqual([
      ['zeta.list', page.rev],
      ['zeta.list', page.rev],
    ])
    expect(provider.requests).toHaveLength(2)
  })
})
