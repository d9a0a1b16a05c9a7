import { describe, expect, test } from 'vitest'
import { withDemo } from './setup.ts'

const setup = withDemo()

/** The `data-testid` of the focused element. */
const focused = () => setup.tab.page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '')

describe('confirmation cards with the keyboard', () => {
  test('the card after my message takes focus on Reject; Tab/Shift+Tab; Enter on Approve; focus returns', async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    await setup.tab.ask('Create a challenge called Robotics')
    const card = page.getByRole('alertdialog', { name: 'Create challenge' })
    await card.waitFor()
    const described = await card.getAttribute('aria-describedby')
    expect(await page.locator(`[id="${described}"]`).textContent()).toBe('Create challenge "Robotics"')
    expect(await card.getByRole('timer').getAttribute('aria-live')).toBe('off')

    await expect.poll(focused).toBe('confirm-reject')
    await page.keyboard.press('Tab')
    expect(await focused()).toBe('confirm-approve')
    await page.keyboard.press('Shift+Tab')
    expect(await focused()).toBe('confirm-reject')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')

    await page.locator('[data-testid="challenge-item"][data-name="Robotics"]').waitFor()
    await card.waitFor({ state: 'detached' })
    await expect.poll(focused).toBe('chat-input')
    const confirmed = await setup.tab.waitForFrame(
      (f) => f.direction === 'sent' && f.message.type === 'confirmed',
    )
    expect(confirmed.message.result).toMatchObject({ status: 'ok', data: { name: 'Robotics' } })
  })

  test('Escape inside the card rejects it (cancelled operator) and focus goes back to the input', async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    await setup.tab.ask('Delete the challenge Marathon Training')
    const card = page.getByRole('alertdialog', { name: 'Delete challenge' })
    await card.waitFor()
    await expect.poll(focused).toBe('confirm-reject')

    await page.keyboard.press('Escape')
    await card.waitFor({ state: 'detached' })
    const confirmed = await setup.tab.waitForFrame(
      (f) => f.direction === 'sent' && f.message.type === 'confirmed',
    )
    expect(confirmed.message.result).toEqual({ status: 'cancelled', by: 'operator' })
    expect(await setup.tab.challengeNames()).toContain('Marathon Training')
    await expect.poll(focused).toBe('chat-input')
  })

  test('Escape outside a card does nothing to it', async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    await setup.tab.ask('Create a challenge called Robotics')
    const card = page.getByRole('alertdialog', { name: 'Create challenge' })
    await card.waitFor()
    await page.getByTestId('chat-input').focus()
    await page.keyboard.press('Escape')
    await page.waitForTimeout(200)
    expect(await card.count()).toBe(1)
    expect(setup.tab.frames.some((f) => f.message.type === 'confirmed')).toBe(false)
  })
})

describe('checked before asking', () => {
  test('deleting a challenge that does not exist is invalid at once: no card, the agent hears why', async () => {
    await setup.tab.fresh()
    await setup.tab.ask('Delete the challenge Robotics')
    const call = await setup.tab.waitForFrame(
      (f) =>
        f.direction === 'received' && f.message.type === 'call' && f.message.tool === 'challenges.delete',
    )
    const result = await setup.tab.waitForFrame(
      (f) => f.direction === 'sent' && f.message.type === 'result' && f.message.id === call.message.id,
    )
    expect(result.message.result).toEqual({
      status: 'invalid',
      issues: [{ path: 'name', message: 'No challenge named "Robotics"' }],
    })
    expect(await setup.tab.messages('tool')).toContainEqual(
      expect.stringContaining('challenges.delete → invalid (name)'),
    )
    expect(await setup.tab.page.getByTestId('confirm-card').count()).toBe(0)
    expect(setup.tab.frames.some((f) => JSON.stringify(f.message).includes('needs_confirmation'))).toBe(false)
  })
})

describe('the chat input', () => {
  test('Send is disabled for an empty or blank message; the limit shows before sending', async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    const input = page.getByTestId('chat-input')
    const send = page.getByTestId('chat-send')
    expect(await send.isDisabled()).toBe(true)
    await input.fill('   \n ')
    expect(await send.isDisabled()).toBe(true)
    await input.fill('Search for chess')
    expect(await send.isEnabled()).toBe(true)

    expect(await input.getAttribute('maxlength')).toBe('4000')
    await input.fill('a'.repeat(3000))
    expect(await page.getByTestId('chat-counter').count()).toBe(0)
    await input.fill('a'.repeat(3700))
    expect(await page.getByTestId('chat-counter').textContent()).toBe('3,700 / 4,000 characters')
    await input.fill('a'.repeat(4500))
    expect((await input.inputValue()).length).toBe(4000)
    expect(await page.getByTestId('chat-counter').textContent()).toBe('4,000 / 4,000 characters')
  })

  test("a message the server refuses shows the server's reason, and the text stays to fix", async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    const input = page.getByTestId('chat-input')
    // Past the browser's limit (as a script or an older page could send): the server has the last word.
    await input.evaluate((element) => element.removeAttribute('maxlength'))
    const text = 'a'.repeat(4001)
    await input.fill(text)
    await page.getByTestId('chat-send').click()
    const alert = page.locator('.chat [role="alert"]')
    await alert.waitFor()

    const id = await setup.tab.conversationId()
    const direct = await setup.tab.context.request.post(
      new URL(`/api/conversations/${id}/messages`, setup.server.url).href,
      { data: { text }, headers: { origin: new URL(setup.server.url).origin } },
    )
    expect(direct.status()).toBe(400)
    const body = (await direct.json()) as { error: string | { message: string } }
    const reason = typeof body.error === 'string' ? body.error : body.error.message
    expect(reason).toMatch(/4000/)
    expect(await alert.textContent()).toBe(`Message not sent: ${reason}`)
    expect(await input.inputValue()).toBe(text)
    expect(await setup.tab.messages('user')).toEqual([])
  })

  test('the reason is read from { error: { code, message } }; without one the status is shown', async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    // Stand-in answers (the real server's refusal is covered above), one per shape the client must read.
    const answers = [
      {
        status: 429,
        contentType: 'application/json',
        body: '{"error":{"code":"busy","message":"Slow down"}}',
      },
      { status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' },
    ]
    await page.route('**/api/conversations/*/messages', (route) => route.fulfill(answers.shift()!))
    const alert = page.locator('.chat [role="alert"]')
    await page.getByTestId('chat-input').fill('Search for chess')
    await page.getByTestId('chat-send').click()
    await expect.poll(() => alert.textContent()).toBe('Message not sent: Slow down')
    await page.getByTestId('chat-send').click()
    await expect.poll(() => alert.textContent()).toBe('Message not sent (HTTP 502)')
    await page.unroute('**/api/conversations/*/messages')
  })
})
