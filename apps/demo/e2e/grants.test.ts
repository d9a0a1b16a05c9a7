import type { ProviderRequest } from '@toolmark/server'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from './harness.ts'
import { type DemoServer, startDemoServer } from './server.ts'

/*
 * Remembered approvals (grants) and readable context in the demo, in Chromium, with the real agent
 * server and its embedded offline agent. `challenges.create` is grantable; `challenges.delete` is
 * destructive and never is. Grants live on the server per user (the browser context's session).
 */

let browser: Browser
let demoServer: DemoServer
let tab: DemoPage

beforeAll(async () => {
  ;[browser, demoServer] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startDemoServer(inject('staticDir')),
  ])
  tab = await DemoPage.open(browser, demoServer.url)
})
afterAll(async () => {
  await tab?.close()
  await browser?.close()
  await demoServer?.close()
})

/** The create tool's description as built, and as a later release of the page words it. */
const DESCRIPTION = 'Create a new challenge with a name and an optional description.'
const CHANGED = 'Create one new challenge with a name and an optional description.'

test('"always" stops the asking for that tool only; a changed tool asks again; Revoke restores asking', async () => {
  const demo = tab
  await demo.fresh()
  const createCard = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')

  // 1. The grantable tool's card offers the three choices; the user picks "always".
  const asked = demo.ask('Create a challenge called Robotics')
  await createCard.waitFor()
  const choices = createCard.getByTestId('confirm-remember').getByRole('radio')
  expect(await choices.evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual([
    'once',
    'conversation',
    'days',
  ])
  await createCard.getByRole('radio', { name: 'Always allow for 30 days' }).check()
  await createCard.getByTestId('confirm-approve').click()
  await asked
  expect(await demo.challengeNames()).toContain('Robotics')
  // The chat lists the remembered approval, and the server keeps it for this user.
  await demo.page.getByTestId('chat-grants').locator('summary').click()
  const grantRows = demo.page.getByTestId('grants').locator('li')
  await expect.poll(() => grantRows.count()).toBe(1)
  expect(await grantRows.first().textContent()).toContain('Create challenge')
  const stored = await demo.context.request.get(new URL('/api/grants', demo.baseUrl).href)
  const grants = ((await stored.json()) as { grants: Array<{ tool: string; caller: string }> }).grants
  expect(grants.map((g) => [g.tool, g.caller])).toEqual([['challenges.create', 'inapp']])

  // 2. The same tool again runs at once: no card.
  await demo.countCards()
  await demo.ask('Create a challenge called Astronomy')
  expect(await demo.challengeNames()).toContain('Astronomy')
  expect(await demo.cardsSeen()).toEqual([])

  // 3. Another tool still asks (a deletion, which can never be remembered: its card offers no choice).
  const deleted = demo.ask('Delete the challenge Marathon Training')
  const deleteCard = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.delete"]')
  await deleteCard.waitFor()
  expect(await deleteCard.getByTestId('confirm-remember').count()).toBe(0)
  await deleteCard.getByTestId('confirm-reject').click()
  await deleted
  expect(await demo.challengeNames()).toContain('Marathon Training')

  // 4. A new release of the page words the tool differently: the grant was for what the tool said, so it asks.
  let rewritten = 0
  await demo.page.route(/\/assets\/.*\.js$/, async (route) => {
    const response = await route.fetch()
    const body = await response.text()
    if (body.includes(DESCRIPTION)) rewritten++
    // Not kept in the browser's cache: the release after it is the original again.
    const headers = { ...response.headers(), 'cache-control': 'no-store' }
    await route.fulfill({ response, headers, body: body.replaceAll(DESCRIPTION, CHANGED) })
  })
  await demo.reload()
  expect(rewritten).toBeGreaterThan(0)
  expect(demo.toolDescription('challenges.create')).toContain(CHANGED)
  const changedAsk = demo.ask('Create a challenge called Gardening')
  await createCard.waitFor()
  await createCard.getByTestId('confirm-reject').click()
  await changedAsk
  expect(await demo.challengeNames()).not.toContain('Gardening')

  // The tool as it was still runs without a card: the grant is untouched.
  await demo.page.unrouteAll()
  await demo.reload()
  expect(demo.toolDescription('challenges.create')).toContain(DESCRIPTION)
  await demo.countCards()
  await demo.ask('Create a challenge called Cooking')
  expect(await demo.challengeNames()).toContain('Cooking')
  expect(await demo.cardsSeen()).toEqual([])

  // 5. Revoke in the chat's list: the tool asks again.
  await demo.page.getByTestId('chat-grants').locator('summary').click()
  await demo.page.getByRole('button', { name: 'Revoke Create challenge' }).click()
  await demo.page.getByTestId('grants-empty').waitFor()
  const afterRevoke = await demo.context.request.get(new URL('/api/grants', demo.baseUrl).href)
  expect(((await afterRevoke.json()) as { grants: unknown[] }).grants).toEqual([])
  const revokedAsk = demo.ask('Create a challenge called Knitting')
  await createCard.waitFor()
  expect(await createCard.getByTestId('confirm-remember').count()).toBe(1)
  await createCard.getByTestId('confirm-approve').click()
  await revokedAsk
  expect(await demo.challengeNames()).toContain('Knitting')
})

test('the list search the user typed reaches the model with the turn, as page context', async () => {
  const demo = tab
  await demo.fresh()
  const requests: ProviderRequest[] = []
  const provider = demoServer.server.provider
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
