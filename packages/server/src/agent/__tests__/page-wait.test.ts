import { describe, expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import { ScriptedProvider } from '../../__tests__/support/scripted-provider.ts'
import { testServers } from '../../__tests__/support/test-server.ts'

const server = testServers()
const read = fakeTool('notes.read', 'Read a note', { readOnly: true }, { type: 'object' })

/** The page tools the model was offered in its first request (inside `page_call`'s description). */
const offered = (p: ScriptedProvider): string => JSON.stringify(p.requests[0]?.tools ?? [])

describe('a message sent while its page is still loading', () => {
  it('waits for the page’s first manifest, so the model sees the page’s tools', async () => {
    const p = new ScriptedProvider([])
    const t = await server({ provider: p })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    // The page's connection is open; its first manifest comes a moment after the user's message.
    const page = await FakePage.open(t.server.url, browser, conversation, [read], { manifest: false })
    await browser.say(conversation, 'read my notes')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(p.requests).toHaveLength(0)
    await page.sendManifest()
    await t.server.agent.idle(conversation)
    expect(p.requests).toHaveLength(1)
    expect(offered(p)).toContain('notes.read')
  })

  it('goes on without the page after pageWaitMs when the manifest never comes', async () => {
    const p = new ScriptedProvider([])
    const t = await server({ provider: p, config: { pageWaitMs: 200 } })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    await FakePage.open(t.server.url, browser, conversation, [read], { manifest: false })
    const started = performance.now()
    await browser.say(conversation, 'read my notes')
    await t.server.agent.idle(conversation)
    expect(p.requests).toHaveLength(1)
    expect(performance.now() - started).toBeGreaterThanOrEqual(150)
    expect(offered(p)).not.toContain('notes.read')
  })

  it('does not wait when no page is connected at all', async () => {
    const p = new ScriptedProvider([])
    const t = await server({ provider: p, config: { pageWaitMs: 60_000 } })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    await browser.say(conversation, 'hello')
    await t.server.agent.idle(conversation)
    expect(p.requests).toHaveLength(1)
  })
})
