import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import {
  box,
  expectInside,
  overlap,
  sidewaysOverflow,
  VIEWPORTS,
  type Viewport,
} from '../../demo/e2e/layout.ts'
import { type Demo, startDemo } from '../scripts/serve.ts'

/*
 * What a first run of the Inertia demo meets, at the other two demos' viewports (a desktop, a phone, a
 * small phone): their layout (on a phone the page and the chat are two tabs, nothing overflows sideways,
 * a card's buttons and Send inside the screen), and the chat's suggested lines, typed in order, each
 * doing what it says. Against the real Laravel backend, as inertia.spec.ts.
 */

const SHOTS =
  process.env.TOOLMARK_SCREENSHOT_DIR ?? fileURLToPath(new URL('./__screenshots__', import.meta.url))

let demo: Demo
let browser: Browser
const contexts: BrowserContext[] = []

/** Runs a statement on the demo's SQLite file (through PHP's PDO, as Laravel reads it). */
function sql(statement: string): void {
  const code = `$d = new PDO('sqlite:' . $argv[1]); $d->exec($argv[2]);`
  execFileSync('php', ['-r', code, demo.database, statement])
}

/** The challenges the test starts from (the demo's database starts empty). */
const SEED = ['Chess Openings', 'Marathon Training', 'Watercolor Sketching']

beforeAll(async () => {
  ;[demo, browser] = await Promise.all([
    startDemo(),
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    }),
  ])
  mkdirSync(SHOTS, { recursive: true })
})
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close()
  // Each test starts from the same three challenges.
  sql('delete from challenges')
})
afterAll(async () => {
  for (const context of contexts) await context.close()
  await browser?.close()
  await demo?.stop()
})

/** Who signs in at each viewport, for the layout check and for the suggested lines (lowercase letters). */
const USERS = {
  desktop: ['ada', 'dana'],
  phone: ['alice', 'pat'],
  'small-phone': ['sam', 'sue'],
} as const

/** Signs `name` in at `viewport` (a phone has touch) and waits for the challenges page's tools. */
async function signIn(name: string, viewport: Viewport): Promise<Page> {
  const values = SEED.map((title) => `('${title}', '', datetime('now'), datetime('now'))`).join(', ')
  sql(`insert into challenges (title, goal, created_at, updated_at) values ${values}`)
  const context = await browser.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    isMobile: viewport.phone,
    hasTouch: viewport.phone,
  })
  contexts.push(context)
  const page = await context.newPage()
  page.on('pageerror', (error) => console.error(`[${name}] ${error.message}`))
  await page.goto(`${demo.url}/login/${name}`)
  await page.getByTestId('challenge-list').waitFor()
  await expect
    .poll(() =>
      page.evaluate(() =>
        (
          window as unknown as { __toolmark: { tm: { manifest(): { tools: { name: string }[] } } } }
        ).__toolmark.tm
          .manifest()
          .tools.map((t) => t.name),
      ),
    )
    .toContain('challenges.create')
  // And Laravel has that manifest (it is POSTed once the page listens on its channel): a message sent before it
  // would be planned without the page's tools.
  const clientId = await page.evaluate(
    () => (window as unknown as { __toolmark: { clientId: string } }).__toolmark.clientId,
  )
  await expect.poll(() => storedTools(clientId)).toContain('challenges.create')
  return page
}

/** The tools of the manifest Laravel stored for a page load, as JSON text ('' before its first manifest). */
function storedTools(clientId: string): string {
  const code = `$d = new PDO('sqlite:' . $argv[1]); $s = $d->prepare('select tools from toolmark_pages where client_id = ?'); $s->execute([$argv[2]]); echo (string) $s->fetchColumn();`
  return execFileSync('php', ['-r', code, demo.database, clientId], { encoding: 'utf8' })
}

const names = (page: Page): Promise<string[]> =>
  page
    .getByTestId('challenge-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-name') ?? ''))
/** The texts of the user's and the agent's messages (tool lines aside), oldest first. */
const said = (page: Page): Promise<string[]> =>
  page
    .getByTestId('chat-log')
    .locator('[data-role="user"] .text, [data-role="assistant"] .text')
    .allTextContents()
const toolLines = (page: Page): Promise<string[]> =>
  page.getByTestId('chat-log').locator('[data-role="tool"] .text').allTextContents()

/** Sends `text` from the chat and waits for the agent's reply to it. */
async function ask(page: Page, text: string): Promise<void> {
  const before = (await said(page)).length
  await page.getByTestId('chat-input').fill(text)
  await page.getByTestId('chat-send').click()
  await expect.poll(async () => (await said(page)).length).toBeGreaterThanOrEqual(before + 2)
}

describe.each(VIEWPORTS)('$name ($width × $height): the other demos’ layout', (viewport) => {
  test('usable: list visible, chat a tab on a phone, a card inside the screen and approved', async () => {
    const page = await signIn(USERS[viewport.name][0], viewport)
    expect(await sidewaysOverflow(page)).toEqual([])
    const items = page.getByTestId('challenge-item')
    expect(await items.count()).toBe(3)
    for (const item of await items.all()) {
      const b = await box(item)
      expect(b.height).toBeGreaterThan(40)
      expect(b.width).toBeGreaterThanOrEqual(Math.min(viewport.width - 48, 600))
      await expectInside(page, item)
    }
    // The chat never covers the list: beside it on a wide screen, hidden behind its tab on a phone.
    const chat = page.locator('aside.chat')
    if (await chat.isVisible())
      expect(overlap(await box(chat), await box(page.getByTestId('challenge-list')))).toBe(false)
    if (viewport.phone) {
      expect(await page.getByTestId('chat-input').isVisible()).toBe(false)
      await page.getByTestId('pane-chat').click()
      expect(await page.getByTestId('challenge-list').isVisible()).toBe(false)
    }
    await expectInside(page, page.getByTestId('chat-send'))

    await ask(page, 'Create a challenge called Kites')
    const card = page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')
    await card.waitFor()
    await expectInside(page, card.getByTestId('confirm-approve'))
    await expectInside(page, card.getByTestId('confirm-reject'))
    expect(await sidewaysOverflow(page)).toEqual([])
    await page.screenshot({ path: join(SHOTS, `inertia-demo-${viewport.name}.png`) })
    if (viewport.phone) {
      // The Agent tab counts the cards waiting for the user.
      await page.getByTestId('pane-page').click()
      expect(await page.getByTestId('pane-chat-waiting').textContent()).toMatch(/^1\b/)
      await page.getByTestId('pane-chat').click()
    }
    await card.getByTestId('confirm-approve').click()
    await card.waitFor({ state: 'detached' })

    if (viewport.phone) await page.getByTestId('pane-page').click()
    const kites = page.locator('[data-testid="challenge-item"][data-name="Kites"]')
    await kites.waitFor()
    await expectInside(page, kites)
    expect(await sidewaysOverflow(page)).toEqual([])
  })
})

describe.each(VIEWPORTS.filter((v) => v.name !== 'small-phone'))(
  '$name: the chat’s suggested lines, in order',
  (viewport) => {
    test('each does what it says: lists, creates through a card, opens the settings', async () => {
      const page = await signIn(USERS[viewport.name][1], viewport)
      if (viewport.phone) await page.getByTestId('pane-chat').click()
      const chips = page.locator('.suggestions button.chip')
      const lines = await chips.allTextContents()
      expect(lines).toEqual(['List the challenges', 'Create a challenge called Robotics', 'Go to settings'])
      // One check per kind of line: a suggestion none of them knows fails, so the list cannot drift.
      const checks: Array<[RegExp, (line: string) => Promise<void>]> = [
        [
          /^List the challenges$/,
          async () => {
            const reply = (await said(page)).at(-1) ?? ''
            for (const title of SEED) expect(reply).toContain(title)
            expect((await toolLines(page)).join('\n')).toMatch(/challenges\.list → ok/)
          },
        ],
        [
          /^Create a challenge called (.+)$/,
          async (line) => {
            const title = /called (.+)$/.exec(line)?.[1] ?? ''
            const card = page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')
            expect(await card.locator('.summary').textContent()).toBe(`Create challenge "${title}"`)
            const before = (await said(page)).length
            await card.getByTestId('confirm-approve').click()
            // The agent acknowledges it; the page shows it.
            await expect.poll(async () => (await said(page)).length).toBeGreaterThan(before)
            await expect.poll(() => names(page)).toEqual([...SEED, title])
          },
        ],
        [
          /^Go to settings$/,
          async () => {
            await expect.poll(() => new URL(page.url()).pathname).toBe('/settings')
            // On a phone the user is on the Agent tab: the Page tab shows the settings.
            if (viewport.phone) await page.getByTestId('pane-page').click()
            await page.getByRole('heading', { name: /^Settings/ }).waitFor()
          },
        ],
      ]
      for (const [index, line] of lines.entries()) {
        const check = checks.find(([pattern]) => pattern.test(line))
        if (!check) throw new Error(`no check for the suggested line "${line}"`)
        if (index === 0) {
          // The first one as a new user sends it: by its chip.
          const before = (await said(page)).length
          await chips.first().click()
          await expect.poll(async () => (await said(page)).length).toBeGreaterThanOrEqual(before + 2)
        } else await ask(page, line)
        await check[1](line)
      }
      // Three agent turns and a follow-up, each through Laravel's queue.
    }, 90_000)
  },
)
