import { expect } from 'vitest'
import type { DemoPage } from './harness.ts'

/*
 * The grants ("allow always") scenario both demos prove in Chromium: the Vite demo with the agent server over
 * WebSocket, the Next demo with its route handlers over SSE + POST. `challenges.create` is grantable;
 * `challenges.delete` is destructive and never is. Grants live on the server per user (the browser context's
 * session).
 */

/** The create tool's description as built, and as a later release of the page words it. */
const DESCRIPTION = 'Create a new challenge with a name and an optional description.'
const CHANGED = 'Create one new challenge with a name and an optional description.'

/** The user's grants as the server keeps them (`GET /api/grants`), as `[tool, caller]` pairs. */
async function serverGrants(demo: DemoPage): Promise<string[][]> {
  const response = await demo.context.request.get(new URL('/api/grants', demo.baseUrl).href)
  const body = (await response.json()) as { grants: Array<{ tool: string; caller: string }> }
  return body.grants.map((g) => [g.tool, g.caller])
}

/**
 * "Always" stops the asking for that tool only; a changed tool asks again; Revoke restores asking. `demo` is
 * on the challenges list with no grant; `scripts` matches the URLs of the page's built JavaScript (a new
 * release is played by rewriting the create tool's description in them).
 */
export async function grantScenario(demo: DemoPage, scripts: RegExp): Promise<void> {
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
  expect(await serverGrants(demo)).toEqual([['challenges.create', 'inapp']])

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
  await demo.page.route(scripts, async (route) => {
    const response = await route.fetch()
    const body = await response.text()
    if (body.includes(DESCRIPTION)) rewritten++
    // Not kept in the browser's cache: the release after it is the original again.
    const headers = { ...response.headers(), 'cache-control': 'no-store' }
    await route.fulfill({ response, headers, body: body.replaceAll(DESCRIPTION, CHANGED) })
  })
  await demo.reload()
  expect(rewritten).toBeGreaterThan(0)
  await expect.poll(() => demo.toolDescription('challenges.create')).toContain(CHANGED)
  const changedAsk = demo.ask('Create a challenge called Gardening')
  await createCard.waitFor()
  await createCard.getByTestId('confirm-reject').click()
  await changedAsk
  expect(await demo.challengeNames()).not.toContain('Gardening')

  // The tool as it was still runs without a card: the grant is untouched.
  await demo.page.unrouteAll()
  await demo.reload()
  await expect.poll(() => demo.toolDescription('challenges.create')).toContain(DESCRIPTION)
  await demo.countCards()
  await demo.ask('Create a challenge called Cooking')
  expect(await demo.challengeNames()).toContain('Cooking')
  expect(await demo.cardsSeen()).toEqual([])

  // 5. Revoke in the chat's list: the tool asks again, and its card offers the choices again.
  await demo.page.getByTestId('chat-grants').locator('summary').click()
  await demo.page.getByRole('button', { name: 'Revoke Create challenge' }).click()
  await demo.page.getByTestId('grants-empty').waitFor()
  expect(await serverGrants(demo)).toEqual([])
  const revokedAsk = demo.ask('Create a challenge called Knitting')
  await createCard.waitFor()
  expect(await createCard.getByTestId('confirm-remember').count()).toBe(1)
  await createCard.getByTestId('confirm-approve').click()
  await revokedAsk
  expect(await demo.challengeNames()).toContain('Knitting')
}
