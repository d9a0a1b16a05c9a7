import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from './harness.ts'
import { type DemoServer, startDemoServer } from './server.ts'

let browser: Browser
let demoServer: DemoServer
let demo: DemoPage | undefined

beforeAll(async () => {
  ;[browser, demoServer] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startDemoServer(inject('staticDir')),
  ])
})
afterAll(async () => {
  await demo?.close()
  await browser?.close()
  await demoServer?.close()
})

const NUMBER = '4000 0566 5566 5556'
const DIGITS = NUMBER.replaceAll(' ', '')
const CVC = '7319'

/** True when `text` holds the card number (grouped or not) or the CVC as a separate number. */
function leaks(text: string): string[] {
  const found: string[] = []
  if (text.includes(DIGITS)) found.push('card number')
  if (text.includes(NUMBER)) found.push('card number (grouped)')
  if (new RegExp(`(^|[^0-9A-Za-z])${CVC}([^0-9A-Za-z]|$)`).test(text)) found.push('CVC')
  return found
}

test('update card: navigate there, approve a card that shows ••••; no number or CVC in the page, the log or SQLite', async () => {
  demo = await DemoPage.open(browser, demoServer.url)
  const from = demo.frames.length
  await demo.ask('Go to settings')
  await demo.waitForTool('settings.updateCard', from)
  await demo.page.waitForURL(/\/settings$/)

  await demo.ask(`Update my payment card to ${NUMBER}, CVC ${CVC}, expiry 12/29`)
  const card = demo.page.locator('[data-testid="confirm-card"][data-tool="settings.updateCard"]')
  await card.waitFor()
  const cardText = (await card.textContent()) ?? ''
  expect(cardText).toContain('••••')
  expect(cardText).toContain('12/29')
  expect(leaks(cardText)).toEqual([])
  await demo.page.screenshot({ path: new URL('./__screenshots__/card-update.png', import.meta.url).pathname })

  const before = (await demo.messages('assistant')).length
  await card.getByTestId('confirm-approve').click()
  await demo.waitForAssistant(before)
  expect(await demo.page.getByTestId('settings-card-last4').textContent()).toBe('5556')

  // The page passed the real values to the tool: the approved run saved the right card.
  const call = await demo.waitForFrame(
    (f) =>
      f.direction === 'received' && f.message.type === 'call' && f.message.tool === 'settings.updateCard',
  )
  expect(call.message.input).toEqual({
    card: { number: expect.stringMatching(/4000/), cvc: CVC, expiry: '12/29' },
  })
  // ...but nothing it sent back carries them, and neither does anything the server kept or shows.
  const sent = demo.frames.filter((f) => f.direction === 'sent').map((f) => JSON.stringify(f.message))
  expect(leaks(sent.join('\n'))).toEqual([])
  expect(leaks((await demo.page.getByTestId('chat-log').textContent()) ?? '')).toEqual([])
  expect(leaks(await demo.page.content())).toEqual([])
  const log = await demo.conversationLog()
  expect(log).toContain('settings.updateCard')
  expect(leaks(log)).toEqual([])
  const stored = await demoServer.storedBytes()
  expect(stored).toContain('settings.updateCard')
  expect(leaks(stored)).toEqual([])
})

test('the settings form by hand: saving keeps and shows only the last four digits', async () => {
  await demo!.fresh('/settings')
  const { page } = demo!
  await page.getByTestId('card-number').fill('4000 0566 5566 5556')
  await page.getByTestId('card-cvc').fill('12')
  await page.getByTestId('card-expiry').fill('12/29')
  await page.getByTestId('card-save').click()
  expect(await page.getByRole('alert').textContent()).toBe('Enter the 3 or 4 digit security code')

  await page.getByTestId('card-cvc').fill(CVC)
  await page.getByTestId('card-save').click()
  await page.getByTestId('settings-card-last4').waitFor()
  expect(await page.getByTestId('settings-card-last4').textContent()).toBe('5556')
  expect(await page.getByTestId('card-number').inputValue()).toBe('')
  expect(leaks(await page.content())).toEqual([])
})
