import type { ToolManifestSummary } from '@toolmark/core'
import { PAGE_DESCRIBE_TOOL, pageCallTool } from '@toolmark/protocol'
import { expect, it } from 'vitest'
import { chunkText, OfflineProvider, plan } from '../embedded.ts'
import type { LlmTool, ProviderEvent, ProviderRequest } from '../types.ts'
import { challengesTools, demoState } from './demo-tools.ts'

it('cuts a reply at word boundaries into a few chunks that add up to it', () => {
  const text = 'I found 3 challenges: Kite building, Chess Openings and Bread baking.'
  const chunks = chunkText(text, 4)
  expect(chunks.length).toBe(4)
  expect(chunks.join('')).toBe(text)
  expect(chunkText('One', 4)).toEqual(['One'])
})

it('streams its reply in chunks, paced by chunkDelayMs', async () => {
  const manifest: ToolManifestSummary[] = challengesTools(demoState()).map(
    ({ name, llmName, title, description, hints }) => ({
      name,
      llmName,
      ...(title === undefined ? {} : { title }),
      description,
      hints,
    }),
  )
  const request: ProviderRequest = {
    system: '',
    messages: [{ role: 'user', text: 'help' }],
    tools: [pageCallTool(manifest), PAGE_DESCRIBE_TOOL as LlmTool],
    manifest,
  }
  const reply = plan(request)
  expect(reply.type === 'text' && reply.delta.split(' ').length).toBeGreaterThan(3)
  const provider = new OfflineProvider({ chunkDelayMs: 30 })
  const at: number[] = []
  const events: ProviderEvent[] = []
  const start = Date.now()
  for await (const event of provider.stream(request)) {
    events.push(event)
    at.push(Date.now() - start)
  }
  expect(events.length).toBe(4)
  expect(at.at(-1)!).toBeGreaterThanOrEqual(30 * 3 - 5)
  const text = events.map((e) => (e.type === 'text' ? e.delta : '')).join('')
  expect(text).toBe(reply.type === 'text' ? reply.delta : '')
  // Without a delay the same chunks come at once.
  let again = ''
  for await (const event of new OfflineProvider().stream(request))
    if (event.type === 'text') again += event.delta
  expect(again).toBe(text)
})
