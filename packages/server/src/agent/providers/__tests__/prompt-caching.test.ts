import { describe, expect, it } from 'vitest'
import { challengesTools, demoState } from '../../../../../offline-agent/src/__tests__/demo-tools.ts'
import { FakePage } from '../../../__tests__/support/fake-page.ts'
import { testServer } from '../../../__tests__/support/test-server.ts'
import { AnthropicProvider } from '../anthropic.ts'
import { OpenAiProvider } from '../openai.ts'
import { fixtureServer, type Recorded } from './fixture-server.ts'

/*
 * Prompt caching needs the tool definitions to be the same bytes on every request that does not
 * change them. These tests read the raw request bodies the providers' SDKs put on the wire.
 */

/** The raw JSON text of each tool definition in a request body, by tool name (checked to be in the bytes sent). */
function toolBytes(request: Recorded): Map<string, string> {
  const tools = request.body.tools as Array<{ name?: string; function?: { name: string } }>
  const out = new Map<string, string>()
  for (const tool of tools) {
    const text = JSON.stringify(tool)
    expect(request.raw).toContain(text) // the exact bytes, not a re-serialization that happens to match
    out.set(tool.name ?? tool.function!.name, text)
  }
  expect(request.raw).toContain(`"tools":${JSON.stringify(tools)}`)
  return out
}

describe('tool definitions are byte-identical across turns and unchanged page revisions', () => {
  it.each([
    ['anthropic', 'anthropic-tool-use.sse', 'anthropic-text.sse'],
    ['openai', 'openai-tool-calls.sse', 'openai-text.sse'],
  ] as const)('%s', async (name, toolFixture, textFixture) => {
    const f = await fixtureServer([
      { fixture: toolFixture }, // turn 1 calls a tool ...
      { fixture: textFixture }, // ... and answers after its result
      { fixture: textFixture }, // turn 2, after a revision with the same tools
      { fixture: textFixture }, // turn 3, after a revision that rewrites one tool's description
    ])
    try {
      const provider =
        name === 'anthropic'
          ? new AnthropicProvider({ apiKey: 'k', baseUrl: f.url, model: 'claude-sonnet-4-5' })
          : new OpenAiProvider({ apiKey: 'k', baseUrl: `${f.url}/v1`, model: 'gpt-4o-mini' })
      const t = await testServer({ provider })
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      const tools = challengesTools(demoState())
      const page = await FakePage.open(t.server.url, browser, conversation, tools)
      const turn = async (text: string) => {
        await browser.say(conversation, text)
        await t.server.agent.idle(conversation)
      }
      await turn('find chess')
      page.rev = 2
      await page.sendManifest(tools.map((tool) => ({ ...tool })))
      await turn('thanks')
      page.rev = 3
      await page.sendManifest(
        tools.map((tool, i) =>
          i === 0 ? { ...tool, description: `${tool.description} Now faster.` } : tool,
        ),
      )
      await turn('and now?')

      expect(f.requests).toHaveLength(4)
      const [first, afterResult, sameRev, changedRev] = f.requests.map(toolBytes)
      expect([...first!.keys()]).toEqual(['page_call', 'page_describe'])
      // Within a turn, and across a revision that changes nothing: the same bytes.
      expect(afterResult).toEqual(first)
      expect(sameRev).toEqual(first)
      // A revision that changes a tool changes page_call only; page_describe keeps its bytes.
      expect(changedRev!.get('page_describe')).toBe(first!.get('page_describe'))
      expect(changedRev!.get('page_call')).not.toBe(first!.get('page_call'))
      expect(changedRev!.get('page_call')).toContain('Now faster.')
    } finally {
      await f.close()
    }
  })
})
