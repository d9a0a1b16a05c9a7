import { randomUUID } from 'node:crypto'
import { expect, it } from 'vitest'
import { FakePage, fakeTool } from '../../__tests__/support/fake-page.ts'
import type { HttpLink } from '../../__tests__/support/page-links.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { testServers } from '../../__tests__/support/test-server.ts'

// Three instances only (the `server-shared` project): the page's stream is on A, its POSTs land on B.
const server = testServers()
const save = fakeTool('notes.save', 'Save a note', { consequential: true }, { type: 'object' })

it('answers a POST handed to the stream’s instance once that instance handled it, so the page’s next POST, wherever it lands, comes after it', async () => {
  const t = await server({
    provider: new ScriptedProvider([() => [toolCall('tc1', 'page_call', { tool: save.name, input: {} })]]),
  })
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const page = await FakePage.open(t.server.url, browser, conversation, [save], { transport: 'http' })
  page.autoAnswer = false
  const call = page.next((m) => m.type === 'call')
  await browser.say(conversation, 'save it')
  const { id } = await call
  const link = page.link as HttpLink
  const confirmId = randomUUID()
  const before = t.crossings.length
  page.result(id, { status: 'needs_confirmation', confirmId, summary: 'Save note', changes: [] })
  await link.flush()
  // Answered by B only after A, holding the stream, handled it (and told B so).
  expect(t.crossings.slice(before)).toEqual(expect.arrayContaining(['post to A', 'posted to B']))
  // So the approval, sent straight to A once that answer came, finds its confirmId bound.
  link.postTo = t.server.instances[0]!
  page.confirmed(confirmId, { status: 'ok' })
  await page.flush()
  expect(link.statuses).toEqual([202, 202, 202]) // the manifest, the result, the approval
  expect(t.rejections).toEqual([])
  expect((await t.server.store.getConfirm(confirmId))?.state).toBe('used')
})
