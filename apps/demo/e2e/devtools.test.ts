import type { Locator } from 'playwright-core'
import { expect, test } from 'vitest'
import { withDemo } from './setup.ts'

const setup = withDemo({ viewport: { width: 1280, height: 900 } })

const NUMBER = '4000 0566 5566 5556'
const DIGITS = NUMBER.replaceAll(' ', '')
const CVC = '7319'

/** Sends a chat message without clicking through the panel, which may cover the chat column. */
async function ask(text: string): Promise<void> {
  const before = (await setup.tab.messages('assistant')).length
  await setup.tab.page.getByTestId('chat-input').fill(text)
  await setup.tab.page.getByTestId('chat-send').dispatchEvent('click')
  await setup.tab.waitForAssistant(before)
}

/** Everything the panel renders (its shadow root's markup, so attribute values count too). */
const panelMarkup = (): Promise<string> =>
  setup.tab.page.evaluate(() => document.querySelector('toolmark-devtools')?.shadowRoot?.innerHTML ?? '')

const panel = (): Locator => setup.tab.page.getByRole('complementary', { name: 'Toolmark devtools' })

test('Alt+Shift+D opens the panel on the Registry tab, which lists the tools by caller', async () => {
  await setup.tab.page.keyboard.press('Alt+Shift+KeyD')
  await panel().waitFor()
  const registry = panel().getByRole('tab', { name: 'Registry' })
  expect(await registry.getAttribute('aria-selected')).toBe('true')
  // Focus starts on the selected tab, so the keyboard can go on from there.
  expect(
    await setup.tab.page.evaluate(
      () => document.querySelector('toolmark-devtools')?.shadowRoot?.activeElement?.id,
    ),
  ).toBe('tab-registry')
  const tools = panel().getByRole('table', { name: 'Tools by caller' })
  await tools.getByRole('rowheader', { name: 'app.navigate' }).waitFor()
})

test('the arrow keys move between tabs, each tab panel named by its tab', async () => {
  await setup.tab.page.keyboard.press('ArrowRight')
  const calls = panel().getByRole('tab', { name: 'Calls' })
  expect(await calls.getAttribute('aria-selected')).toBe('true')
  await panel().getByRole('tabpanel', { name: 'Calls' }).waitFor()
  await setup.tab.page.keyboard.press('ArrowLeft')
  expect(await panel().getByRole('tab', { name: 'Registry' }).getAttribute('aria-selected')).toBe('true')
})

test('follows the revision change of a navigation', async () => {
  const rev = Number(await panel().locator('[data-slot=rev]').textContent())
  await ask('Go to settings')
  await setup.tab.page.waitForURL(/\/settings$/)
  await expect
    .poll(async () => Number(await panel().locator('[data-slot=rev]').textContent()))
    .toBeGreaterThan(rev)
  await panel()
    .getByRole('table', { name: 'Tools by caller' })
    .getByRole('rowheader', { name: 'settings.updateCard' })
    .waitFor()
  expect(
    await panel().getByRole('listitem').filter({ hasText: 'added settings.updateCard' }).count(),
  ).toBeGreaterThan(0)
})

test("shows a call's decision and a deferred confirmation through its life, approved from the panel", async () => {
  await ask(`Update my payment card to ${NUMBER}, CVC ${CVC}, expiry 12/29`)
  const card = setup.tab.page.locator('[data-testid="confirm-card"][data-tool="settings.updateCard"]')
  await card.waitFor()

  await panel().getByRole('tab', { name: 'Pending' }).click()
  const pending = panel().getByRole('tabpanel', { name: 'Pending' })
  await pending.getByText('Deferred: the caller cannot wait in the page').waitFor()
  await pending.getByRole('timer').waitFor()
  const before = (await setup.tab.messages('assistant')).length
  // By keyboard: from the Pending tab, Tab reaches its panel, then the Approve button.
  await setup.tab.page.keyboard.press('Tab')
  await setup.tab.page.keyboard.press('Tab')
  const focused = () =>
    setup.tab.page.evaluate(
      () => document.querySelector('toolmark-devtools')?.shadowRoot?.activeElement?.textContent,
    )
  expect(await focused()).toBe('Approve')
  await setup.tab.page.keyboard.press('Enter')
  // The panel answered it as the card would: the card closes and the tool ran with the real values.
  await card.waitFor({ state: 'detached' })
  await setup.tab.waitForAssistant(before)
  // The answered confirmation is gone; focus stays in the Pending panel, not lost to the page.
  expect(
    await setup.tab.page.evaluate(
      () => document.querySelector('toolmark-devtools')?.shadowRoot?.activeElement?.id,
    ),
  ).toBe('panel-pending')
  expect(await setup.tab.page.getByTestId('settings-card-last4').textContent()).toBe('5556')

  await panel().getByRole('tab', { name: 'Calls' }).click()
  const call = panel().locator('details', { hasText: 'settings.updateCard by inapp' }).first()
  await call.locator('summary').click()
  // The policy rule that allowed it, when its card was offered, and how long the user took.
  await call.getByText('Allowed: the policy lets inapp call consequential tools.').first().waitFor()
  await call.getByText(/deferred confirmation: card offered at .*, approved after \d+ ms/).waitFor()
})

test('shows no card number or CVC anywhere in the panel, nor in an exported session', async () => {
  const markup = await panelMarkup()
  expect(markup).toContain('settings.updateCard')
  expect(markup).toContain('[redacted]')
  expect(markup).not.toContain(DIGITS)
  expect(markup).not.toContain(NUMBER)
  expect(markup).not.toMatch(new RegExp(`(^|[^0-9A-Za-z])${CVC}([^0-9A-Za-z]|$)`))
  const [download] = await Promise.all([
    setup.tab.page.waitForEvent('download'),
    panel().getByRole('button', { name: 'Export session' }).click(),
  ])
  const chunks: Buffer[] = []
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer)
  const exported = Buffer.concat(chunks).toString('utf8')
  expect(JSON.parse(exported).format).toBe('toolmark-devtools-session')
  expect(exported).toContain('settings.updateCard')
  expect(exported).not.toContain(DIGITS)
  expect(exported).not.toMatch(new RegExp(`(^|[^0-9A-Za-z])${CVC}([^0-9A-Za-z]|$)`))
  await setup.tab.page.screenshot({
    path: new URL('./__screenshots__/devtools.png', import.meta.url).pathname,
  })
})

test('Pop out moves the live panel into a window of its own; closing that window brings it back', async () => {
  const [popup] = await Promise.all([
    setup.tab.context.waitForEvent('page'),
    panel().getByRole('button', { name: 'Pop out' }).click(),
  ])
  const moved = popup.getByRole('complementary', { name: 'Toolmark devtools' })
  await moved.getByRole('tab', { name: 'Calls' }).click()
  await moved.getByText('settings.updateCard by inapp').first().waitFor()
  expect(await panel().count()).toBe(0)
  const markup = await popup.evaluate(
    () => document.querySelector('toolmark-devtools')?.shadowRoot?.innerHTML ?? '',
  )
  expect(markup).not.toContain(DIGITS)
  await popup.close({ runBeforeUnload: true })
  await panel().waitFor()
  await panel().getByRole('button', { name: 'Pop out' }).waitFor()
})

test("Consumers shows the bridge's connection state and clientId, and the tour runner's state", async () => {
  await panel().getByRole('tab', { name: 'Consumers' }).click()
  const consumers = panel().getByRole('tabpanel', { name: 'Consumers' })
  const bridge = consumers.locator('[data-consumer=bridge]')
  await expect.poll(() => bridge.textContent()).toMatch(/^bridge: open; clientId: \S+$/)
  await expect
    .poll(() => consumers.locator('[data-consumer=tour]').textContent())
    .toMatch(/^tour: idle; tours: /)
})

test('a playground call with invalid input says why it did not run, with the issues', async () => {
  await panel().getByRole('tab', { name: 'Playground' }).click()
  const playground = panel().getByRole('tabpanel', { name: 'Playground' })
  await playground.getByLabel('Tool').selectOption('settings.updateCard')
  await playground.getByLabel('Caller').selectOption('inapp')
  await playground.getByLabel('Input (JSON)').fill('{}')
  await playground.getByRole('button', { name: 'Run call' }).click()
  await playground.getByText('"status": "invalid"').waitFor()
  await panel().getByRole('tab', { name: 'Calls' }).click()
  const call = panel().locator('details', { hasText: 'settings.updateCard by inapp: invalid' }).first()
  await call.locator('summary').click()
  await call.getByText(/The input failed validation \(\d+ issues?\); the tool did not run\./).waitFor()
  expect(await call.getByRole('heading', { name: 'Validation issues' }).count()).toBe(1)
})

test('Escape closes the panel', async () => {
  await panel().getByRole('tab', { name: 'Calls' }).focus()
  await setup.tab.page.keyboard.press('Escape')
  await panel().waitFor({ state: 'detached' })
})
