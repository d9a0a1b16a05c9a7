import { describe, expect, test } from 'vitest'
import { box, overlap } from './layout.ts'
import { withDemo } from './setup.ts'

/*
 * The New challenge form as agent tools (challengeForm.fill / .submit) and the "create a challenge"
 * tour, in the built demo behind the real agent server. The agent's calls go through the server's
 * relay (what the agent loop calls for page_call), so no model is involved.
 */

const setup = withDemo()

/** Calls a page tool the way the agent loop does: through the relay, bound to this conversation. */
async function agentCall(tool: string, input: Record<string, unknown>) {
  const conversationId = await setup.tab.conversationId()
  const conversation = await setup.server.server.store.getConversation(conversationId)
  if (!conversation) throw new Error('unknown conversation')
  const scope = { userId: conversation.userId, conversationId, toolCallId: `test-${tool}` }
  return (await setup.server.server.relay.request(scope, { kind: 'call', tool, input })).result
}

describe('forms and tours in the demo', () => {
  test('the agent fills the New challenge form (React state follows) and submits it through a diff card', async () => {
    await setup.tab.fresh()
    await setup.tab.waitForTool('challengeForm.fill')
    const { page } = setup.tab
    expect(await agentCall('challengeForm.fill', { name: 'Robotics', description: 'Build a robot' })).toEqual(
      {
        status: 'ok',
        data: [
          { path: 'name', after: 'Robotics' },
          { path: 'description', after: 'Build a robot' },
        ],
      },
    )
    expect(await page.getByTestId('create-name').inputValue()).toBe('Robotics')

    const asked = await agentCall('challengeForm.submit', {})
    expect(asked).toMatchObject({
      status: 'needs_confirmation',
      summary: 'Create challenge "Robotics"',
      changes: [
        { path: 'name', after: 'Robotics' },
        { path: 'description', after: 'Build a robot' },
      ],
    })
    const card = page.locator('[data-testid="confirm-card"][data-tool="challengeForm.submit"]')
    await card.waitFor()
    expect(await card.textContent()).toContain('Robotics')
    // Headed with the form's label, not the tool's dotted name.
    expect(await card.locator('strong').first().textContent()).toBe('New challenge')
    expect(await setup.tab.challengeNames()).not.toContain('Robotics')
    await card.getByTestId('confirm-approve').click()
    // The form's own submit handler ran (as the user would): the challenge exists, the form is empty.
    await page.locator('[data-testid="challenge-item"][data-name="Robotics"]').waitFor()
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="create-name"]') as HTMLInputElement).value === '',
    )
  })

  test('a submit the app rejects (a taken name) answers the agent invalid, not ok: nothing saved, one row', async () => {
    await setup.tab.fresh()
    await setup.tab.waitForTool('challengeForm.fill')
    const { page } = setup.tab
    await agentCall('challengeForm.fill', { name: 'Chess Openings' })
    expect((await agentCall('challengeForm.submit', {})).status).toBe('needs_confirmation')
    const card = page.locator('[data-testid="confirm-card"][data-tool="challengeForm.submit"]')
    await card.getByTestId('confirm-approve').click()
    // What the agent learns is what the app did: the create call's "already exists", at the field.
    const confirmed = await setup.tab.waitForFrame(
      (f) => f.direction === 'sent' && f.message.type === 'confirmed',
    )
    expect(confirmed.message.result).toEqual({
      status: 'invalid',
      issues: [{ path: 'name', message: 'A challenge named "Chess Openings" already exists' }],
    })
    expect(await page.getByRole('alert').textContent()).toBe(
      'A challenge named "Chess Openings" already exists',
    )
    expect((await setup.tab.challengeNames()).filter((name) => name === 'Chess Openings')).toHaveLength(1)
  })

  test('an empty New challenge form is answered invalid at once: no card, nothing created', async () => {
    await setup.tab.fresh()
    await setup.tab.waitForTool('challengeForm.fill')
    const before = await setup.tab.challengeNames()
    expect(await agentCall('challengeForm.submit', {})).toEqual({
      status: 'invalid',
      issues: [{ path: 'name', message: 'Enter a name' }],
    })
    expect(await setup.tab.page.locator('[data-testid="confirm-card"]').count()).toBe(0)
    expect(await setup.tab.challengeNames()).toEqual(before)
  })

  test('a submit approved after the user edited the form is refused stale and creates nothing', async () => {
    await setup.tab.fresh()
    await setup.tab.waitForTool('challengeForm.fill')
    const { page } = setup.tab
    await agentCall('challengeForm.fill', { name: 'Chess club' })
    await agentCall('challengeForm.submit', {})
    const card = page.locator('[data-testid="confirm-card"][data-tool="challengeForm.submit"]')
    await card.waitFor()
    await page.getByTestId('create-name').fill('Something else')
    await card.getByTestId('confirm-approve').click()
    await card.waitFor({ state: 'detached' })
    const names = await setup.tab.challengeNames()
    expect(names).not.toContain('Chess club')
    expect(names).not.toContain('Something else')
  })

  test('the tour: started by the agent, it navigates, fills, waits for the inline confirmation; Escape leaves', async () => {
    await setup.tab.fresh('/settings')
    const { page } = setup.tab
    await page.getByTestId('chat-input').focus()
    expect(await agentCall('tour.start', { tour: 'create-challenge' })).toEqual({
      status: 'ok',
      data: { started: 'create-challenge', steps: 3 },
    })
    const dialog = page.locator('[data-toolmark-tour][role=dialog]')
    await dialog.waitFor()
    expect(await dialog.locator('[aria-live=polite]').textContent()).toBe(
      'Challenges live on the Challenges page.',
    )
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-action'))).toBe('run')
    // The dialog never covers the chat's input (domOverlay's avoid), on every step.
    const chatInput = page.locator('.chat-form')
    expect(overlap(await box(chatInput), await box(dialog))).toBe(false)
    await dialog.locator('[data-action=run]').click()
    // A client-side navigation: the form's tools arrive with the challenges page, step 2 runs itself.
    await page.waitForFunction(() =>
      document.querySelector('[data-toolmark-tour] h2')?.textContent?.endsWith('3 of 3'),
    )
    expect(await page.getByTestId('create-name').inputValue()).toBe('Robotics')
    expect(await dialog.textContent()).toContain('name: Robotics')
    expect(overlap(await box(chatInput), await box(dialog))).toBe(false)
    await dialog.locator('[data-action=run]').click()
    const inline = page.getByTestId('guides').getByTestId('confirm-card')
    await inline.waitFor()
    // The tour's dialog never covers the card it waits for; it is the chat's card (Reject first).
    expect(overlap(await box(inline), await box(dialog))).toBe(false)
    expect(await inline.getByRole('button').allInnerTexts()).toEqual(['Reject', 'Approve'])
    await inline.getByRole('button', { name: 'Approve' }).click()
    await page.locator('[data-testid="challenge-item"][data-name="Robotics"]').waitFor()
    await dialog.waitFor({ state: 'detached' })
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('chat-input')

    // Started again from the page's button; Escape leaves it and focus goes back.
    await page.getByTestId('tour-create').click()
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tour-create')
  })

  test('the plan wizard: stepwise in the manifest, steps in order, a revisit changes the final diff', async () => {
    await setup.tab.fresh()
    await setup.tab.waitForTool('plan.fill')
    const { page } = setup.tab
    const manifest = setup.tab.frames.findLast((f) => f.direction === 'sent' && f.message.type === 'manifest')
    const tools = manifest?.message.tools as { name: string; mode?: string }[]
    expect(tools.filter((t) => t.name.startsWith('plan.')).map((t) => [t.name, t.mode])).toEqual([
      ['plan.back', 'stepwise'],
      ['plan.fill', 'stepwise'],
      ['plan.next', 'stepwise'],
      ['plan.submit', 'stepwise'],
    ])
    expect((await agentCall('plan.fill', { step: 'goal', values: { goal: 'x' } })).status).toBe('invalid')
    await agentCall('plan.fill', { values: { name: 'Marathon', category: 'fitness' } })
    expect(await agentCall('plan.next', {})).toEqual({
      status: 'ok',
      data: { step: 'schedule', fields: ['starts'] },
    })
    expect(await page.getByTestId('plan').getAttribute('data-step')).toBe('schedule')
    await agentCall('plan.fill', { values: { starts: '2027-01-01' } })
    await agentCall('plan.next', {})
    await agentCall('plan.fill', { values: { goal: 'Run 42 km' } })
    expect(await page.getByTestId('plan-goal').inputValue()).toBe('Run 42 km')
    await agentCall('plan.fill', { step: 'basics', values: { name: 'Marathon 2027' } })
    expect(await agentCall('plan.submit', {})).toMatchObject({
      status: 'needs_confirmation',
      summary: 'Create challenge "Marathon 2027"',
      changes: [
        { path: 'name', after: 'Marathon 2027' },
        { path: 'category', after: 'fitness' },
        { path: 'starts', after: '2027-01-01' },
        { path: 'goal', after: 'Run 42 km' },
      ],
    })
    const card = page.locator('[data-testid="confirm-card"][data-tool="plan.submit"]')
    await card.getByTestId('confirm-approve').click()
    await page.locator('[data-testid="challenge-item"][data-name="Marathon 2027"]').waitFor()
    expect(await page.getByTestId('plan').getAttribute('data-step')).toBe('basics')
  })
})
