import type { ProviderRequest } from '@toolmark/server'
import { expect, test } from 'vitest'
import { grantScenario } from './grants-scenario.ts'
import { withDemo } from './setup.ts'

/*
 * Remembered approvals (grants) and readable context in the demo, in Chromium, with the real agent
 * server and its embedded offline agent (the grants scenario is the Next demo's too: grants-scenario.ts).
 */

const setup = withDemo()

test('"always" stops the asking for that tool only; a changed tool asks again; Revoke restores asking', async () => {
  await setup.tab.fresh()
  await grantScenario(setup.tab, /\/assets\/.*\.js$/)
})

test('the list search the user typed reaches the model with the turn, as page context', async () => {
  const demo = setup.tab
  await demo.fresh()
  const requests: ProviderRequest[] = []
  const provider = setup.server.server.provider
  const stream = provider.stream.bind(provider)
  provider.stream = (request) => {
    requests.push(request)
    return stream(request)
  }
  try {
    const from = demo.frames.length
    await demo.page.getByTestId('challenge-search').fill('chess')
    // The page sends its context once it changed (the server accepted the extension).
    await demo.waitForFrame(
      (f) =>
        f.direction === 'sent' &&
        f.message.type === 'context' &&
        JSON.stringify(f.message.entries).includes('"query":"chess"'),
      10_000,
      from,
    )
    await demo.ask('Search for chess')
    const first = requests[0]
    expect(first).toBeDefined()
    const pageData = first!.messages.filter(
      (m) => m.role === 'user' && 'text' in m && m.text.includes('challenges.filter'),
    )
    expect(pageData).toHaveLength(1)
    // The server's note that this is page data (never instructions), then the entries as JSON.
    const [note, json = ''] = (pageData[0] as { text: string }).text.split('\n')
    expect(note).toMatch(/page/i)
    const entries = JSON.parse(json) as Array<{ name: string; value: unknown }>
    expect(entries).toContainEqual(
      expect.objectContaining({
        name: 'challenges.filter',
        value: { query: 'chess', shown: ['Chess Openings'] },
      }),
    )
  } finally {
    provider.stream = stream
  }
})
