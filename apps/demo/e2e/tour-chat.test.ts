import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from './harness.ts'
import { type DemoServer, startDemoServer } from './server.ts'

/*
 * Asking the embedded agent in the chat to be shown how starts the page's guided tour: the agent
 * picks the tour tool from the manifest's words and the tour's id from its schema.
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

test('typing "show me how to create a challenge" in the chat starts the create-a-challenge tour', async () => {
  await tab.fresh()
  await tab.waitForTool('tour.start')
  const { page } = tab
  const dialog = page.locator('[data-toolmark-tour][role=dialog]')
  expect(await dialog.count()).toBe(0)

  const answers = await tab.ask('show me how to create a challenge')
  expect(answers.join('\n')).toContain('I started the guided tour in the page: follow its steps there.')
  await dialog.waitFor()
  expect(await dialog.locator('h2').textContent()).toMatch(/1 of 3$/)
  expect(await dialog.locator('[aria-live=polite]').textContent()).toBe(
    'Challenges live on the Challenges page.',
  )
  // The agent only started it: nothing was created, and the user can leave the tour.
  expect(await tab.challengeNames()).not.toContain('Robotics')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
})

test('the plan wizard over several chat turns: the agent asks for a step, and the next message answers it', async () => {
  await tab.fresh()
  await tab.waitForTool('plan.fill')
  const { page } = tab
  /** The agent's last answer to `text`, without the message's "Agent" label. */
  const reply = async (text: string) => (await tab.ask(text)).at(-1)?.replace(/^Agent\s*/, '')
  expect(await reply('plan a challenge')).toBe(
    "Let's plan a challenge, step by step. The first step is basics: what name and category (fitness, learning or creative) should I fill in?",
  )
  expect(await reply('Robotics, learning')).toBe(
    'I filled in name: "Robotics"; category: "learning". Nothing is saved until the form is submitted. Tell me the rest, or say "next" for the next step.',
  )
  expect(await page.getByTestId('plan-name').inputValue()).toBe('Robotics')
  expect(await page.getByTestId('plan-category').inputValue()).toBe('learning')
  expect(await reply('next')).toBe('Now on the schedule step: what starts should I fill in?')
  await tab.ask('2027-01-10')
  expect(await page.getByTestId('plan-starts').inputValue()).toBe('2027-01-10')
  expect(await page.getByTestId('plan').getAttribute('data-step')).toBe('schedule')
})
