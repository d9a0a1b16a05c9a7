import { readFileSync } from 'node:fs'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { iconStatus } from './harness.ts'
import { withDemo } from './setup.ts'

/*
 * What a first run of `npm run demo` meets: the README's suggested lines in their order, the page's data
 * across a reload, an undo from the page in the chat, the guides only on their page, no failed request,
 * a title on every tool. Assertions are on the page's state and its cards rather than the agent's
 * wording, which may change.
 */

const ROOT = new URL('../../../', import.meta.url)

const setup = withDemo()

const card = (page: Page, tool: string) => page.locator(`[data-testid="confirm-card"][data-tool="${tool}"]`)
const item = (page: Page, name: string) => page.locator(`[data-testid="challenge-item"][data-name="${name}"]`)
/** The lines the page itself added to the chat. */
const pageNotes = (page: Page) =>
  page.locator('[data-testid="chat-message"][data-source="page"] .text').allInnerTexts()

/**
 * The lines README.md suggests typing in the demo's chat, in order: the backticked text before the arrow
 * of each bullet under "In the demo's chat, try:".
 */
export function readmeLines(): string[] {
  const readme = readFileSync(new URL('README.md', ROOT), 'utf8')
  const start = readme.indexOf("In the demo's chat, try:")
  if (start < 0) throw new Error('README.md has no "In the demo\'s chat, try:" list')
  const list = readme.slice(start).split(/\n\n/)[1] ?? ''
  return list
    .split(/\n- /)
    .map((bullet) => bullet.replace(/^- /, '').split('→')[0] ?? '')
    .flatMap((head) => [...head.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''))
}

describe('the README’s suggested lines, typed in order', () => {
  test('each one does what the README says', async () => {
    const lines = readmeLines()
    expect(lines.length).toBeGreaterThanOrEqual(6)
    await setup.tab.fresh()
    const { page } = setup.tab
    const banner = readFileSync(new URL('scripts/demo.sh', ROOT), 'utf8')
    const seed = await setup.tab.challengeNames()
    /** Clicks a card's Approve (or Delete) and waits for the agent's follow-up, before the next line. */
    const approve = async (button: Locator): Promise<void> => {
      const before = (await setup.tab.messages('assistant')).length
      await button.click()
      await setup.tab.waitForAssistant(before)
    }
    // One check per kind of line: a README line none of them knows fails, so the list cannot drift.
    const checks: Array<[RegExp, (line: string, from: number) => Promise<void>]> = [
      [
        /^Search for (.+)$/,
        async (line, from) => {
          const query = /^Search for (.+)$/.exec(line)?.[1] ?? ''
          const result = await setup.tab.toolResult('challenges.search', from)
          expect(JSON.stringify(result)).toMatch(new RegExp(query, 'i'))
        },
      ],
      [
        /^Create a challenge called (.+)$/,
        async (line) => {
          const name = /called (.+)$/.exec(line)?.[1] ?? ''
          await approve(card(page, 'challenges.create').getByTestId('confirm-approve'))
          await item(page, name).waitFor()
        },
      ],
      [
        /^Delete the challenge (.+)$/,
        async (line, from) => {
          const name = /challenge (.+)$/.exec(line)?.[1] ?? ''
          if (!seed.includes(name) && !(await setup.tab.challengeNames()).includes(name)) {
            // There is none: `invalid` at once, no card.
            expect(await setup.tab.toolResult('challenges.delete', from)).toMatchObject({ status: 'invalid' })
            expect(await page.getByTestId('confirm-card').count()).toBe(0)
            return
          }
          const deleting = card(page, 'challenges.delete')
          const note = (await deleting.getByTestId('confirm-undo-note').textContent()) ?? ''
          expect(note).toBe('This action can be undone from the page.')
          // `npm run demo`'s start banner says what the card says.
          expect(banner).toContain(note)
          await approve(deleting.getByTestId('confirm-delete'))
          await item(page, name).waitFor({ state: 'detached' })
          await page.getByTestId('undo-delete').click()
          await item(page, name).waitFor()
          expect((await pageNotes(page)).join('\n')).toContain(name)
        },
      ],
      [
        /^What do the notes of (.+) say\?$/,
        async (_line, from) => {
          expect(await setup.tab.toolResult('challenges.notes', from)).toMatchObject({ status: 'ok' })
          // The injection in the notes is not obeyed: nothing is deleted, no card asks to.
          expect(await page.getByTestId('confirm-card').count()).toBe(0)
        },
      ],
      [
        /^Go to settings$/,
        async (_line, from) => {
          await page.waitForURL('**/settings')
          await setup.tab.waitForTool('settings.updateCard', from)
        },
      ],
      [
        /^Update my payment card to ([\d ]+), CVC (\d+), expiry (\d\d\/\d\d)$/,
        async (line) => {
          const [, number = '', cvc = '', expiry = ''] =
            /to ([\d ]+), CVC (\d+), expiry (.+)$/.exec(line) ?? []
          const updating = card(page, 'settings.updateCard')
          const text = (await updating.textContent()) ?? ''
          expect(text).toContain('••••')
          expect(text).not.toContain(number)
          expect(text).not.toContain(`${cvc} `)
          await approve(updating.getByTestId('confirm-approve'))
          await page.getByTestId('settings-card-last4').waitFor()
          expect(await page.getByTestId('settings-card-last4').textContent()).toBe(number.slice(-4))
          expect(await page.locator('.saved-card').textContent()).toContain(expiry)
        },
      ],
    ]
    for (const line of lines) {
      const check = checks.find(([pattern]) => pattern.test(line))
      expect(check, `no check for the README line "${line}"`).toBeDefined()
      const from = setup.tab.frames.length
      const answers = await setup.tab.ask(line)
      expect(answers.length, `an answer to "${line}"`).toBeGreaterThan(0)
      await check?.[1](line, from)
    }
  })
})

describe('the page’s data and the conversation survive a reload together', () => {
  test('a challenge created from the chat is still there after a reload, and the agent finds it', async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    await setup.tab.ask('Create a challenge called Kites')
    await card(page, 'challenges.create').getByTestId('confirm-approve').click()
    await item(page, 'Kites').waitFor()
    const conversation = await setup.tab.conversationId()

    const from = setup.tab.frames.length
    await setup.tab.reload()
    expect(await setup.tab.conversationId()).toBe(conversation)
    expect(await setup.tab.challengeNames()).toContain('Kites')
    await setup.tab.ask('Search for kites')
    const result = await setup.tab.toolResult('challenges.search', from)
    expect(result).toMatchObject({ status: 'ok', data: { results: [{ name: 'Kites' }] } })
  })

  test('a rename and a saved card are kept; a new conversation starts from the seed data', async () => {
    await setup.tab.fresh()
    const { page } = setup.tab
    const chess = item(page, 'Chess Openings')
    await chess.getByRole('button', { name: 'Edit' }).click()
    await page.locator('.challenge.editing input[aria-label="Name"]').fill('Chess Endgames')
    await page.locator('.challenge.editing').getByRole('button', { name: 'Save' }).click()
    await item(page, 'Chess Endgames').waitFor()
    await setup.tab.page.getByTestId('nav-settings').click()
    await page.getByTestId('card-number').fill('4242 4242 4242 4242')
    await page.getByTestId('card-cvc').fill('123')
    await page.getByTestId('card-expiry').fill('12/29')
    await page.getByTestId('card-save').click()
    await page.getByTestId('settings-card-last4').waitFor()

    await setup.tab.reload()
    expect(await page.getByTestId('settings-card-last4').textContent()).toBe('4242')
    // Only the last four digits are kept, never the number or the CVC.
    const kept = await page.evaluate(() => JSON.stringify({ ...localStorage }))
    expect(kept).not.toContain('4242 4242')
    expect(kept).not.toContain('"123"')
    await page.getByTestId('nav-challenges').click()
    expect(await setup.tab.challengeNames()).toEqual([
      'Chess Endgames',
      'Marathon Training',
      'Watercolor Sketching',
    ])

    // An entry the page cannot read is ignored: the seed data, and the page keeps working.
    await page.evaluate(
      (key) => localStorage.setItem(key, '{"version":1,"challenges":"nope"}'),
      `toolmark-demo:data:${await setup.tab.conversationId()}`,
    )
    await setup.tab.reload()
    expect(await setup.tab.challengeNames()).toEqual([
      'Chess Openings',
      'Marathon Training',
      'Watercolor Sketching',
    ])

    // Forgetting the conversation forgets its data too: never one without the other.
    await setup.tab.fresh()
    expect(await setup.tab.challengeNames()).toEqual([
      'Chess Openings',
      'Marathon Training',
      'Watercolor Sketching',
    ])
  })
})

test('an undo from the page adds a line to the chat, which a reload keeps', async () => {
  await setup.tab.fresh()
  const { page } = setup.tab
  await setup.tab.ask('Delete the challenge Marathon Training')
  const before = (await setup.tab.messages('assistant')).length
  await card(page, 'challenges.delete').getByTestId('confirm-delete').click()
  await item(page, 'Marathon Training').waitFor({ state: 'detached' })
  // The agent's follow-up about the delete first: the undo comes after it.
  await setup.tab.waitForAssistant(before)
  expect(await pageNotes(page)).toEqual([])
  await page.getByTestId('undo-delete').click()
  await item(page, 'Marathon Training').waitFor()
  const notes = await pageNotes(page)
  expect(notes).toHaveLength(1)
  expect(notes[0]).toMatch(/Undone.*Marathon Training/)
  // It comes after the agent's messages about the delete.
  const roles = await page
    .locator('[data-testid="chat-message"]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-source')))
  expect(roles.at(-1)).toBe('page')

  await setup.tab.reload()
  expect(await pageNotes(page)).toEqual(notes)
  expect(await setup.tab.challengeNames()).toContain('Marathon Training')
})

test('the guides show on the challenges page only', async () => {
  await setup.tab.fresh('/settings')
  const { page } = setup.tab
  expect(await page.getByTestId('guides').count()).toBe(0)
  expect(await page.getByTestId('plan').count()).toBe(0)
  await page.getByTestId('nav-challenges').click()
  await page.getByTestId('tour-create').waitFor()
  expect(await page.getByTestId('plan').isVisible()).toBe(true)
})

test('no request fails while the demo loads and navigates (no favicon 404)', async () => {
  const context = await setup.browser.newContext()
  const page = await context.newPage()
  const failed: string[] = []
  page.on('requestfailed', (request) => {
    // Leaving a page aborts its open event stream: that is the browser, not a failure.
    const error = request.failure()?.errorText
    if (error !== 'net::ERR_ABORTED') failed.push(`${request.url()}: ${error}`)
  })
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.url()}: HTTP ${response.status()}`)
  })
  const demo = new URL(setup.server.url)
  await page.goto(new URL('/', demo).href)
  await page.getByTestId('chat-input').waitFor()
  await page.getByTestId('nav-settings').click()
  await page.getByTestId('card-number').waitFor()
  await page.goto(new URL('/settings', demo).href)
  await page.getByTestId('card-number').waitFor()
  // The browser asks for the icon after the load: wait until it is idle.
  await page.waitForLoadState('networkidle')
  expect(failed).toEqual([])
  expect(await iconStatus(page)).toMatchObject({ status: 200 })
  await context.close()
})

test('every tool in the manifest has a title, and a card is headed by its tool’s title', async () => {
  await setup.tab.fresh()
  const titles = (): Array<[string, unknown]> => {
    const manifest = setup.tab.frames.findLast((f) => f.direction === 'sent' && f.message.type === 'manifest')
    const tools = (manifest?.message.tools ?? []) as Array<{ name: string; title?: unknown }>
    return tools.map((t) => [t.name, t.title])
  }
  // The demo's own tools; the New challenge form's two tools get their titles from the form helper in
  // @toolmark/core (`registerDomForm`), not from the demo.
  const untitled = (list: Array<[string, unknown]>) =>
    list
      .filter(([name]) => !name.startsWith('challengeForm.'))
      .filter(([, title]) => typeof title !== 'string' || title.trim() === '')
      .map(([name]) => name)
  expect(untitled(titles())).toEqual([])
  const createTitle = titles().find(([name]) => name === 'challenges.create')?.[1]
  await setup.tab.ask('Create a challenge called Robotics')
  const heading = card(setup.tab.page, 'challenges.create').locator('header strong')
  expect(await heading.textContent()).toBe(createTitle)
  await setup.tab.fresh('/settings')
  expect(untitled(titles())).toEqual([])
})
