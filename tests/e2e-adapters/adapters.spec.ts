/**
 * One behaviour spec, three adapters: each app (React under StrictMode, Vue, Svelte) is built with
 * `vite build`, served statically and driven in real Chromium. The pages share routes and test ids:
 * tools appear after mount and disappear after unmount, a deferred confirmation card approves and
 * runs the tool (requested by an agent over the bridge protocol, caller `inapp`), and a scope's
 * tools and pending confirmations vanish on navigation away.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { serveStatic } from './server.ts'

const apps = (process.env.TOOLMARK_E2E_APPS ?? '').split(',').filter(Boolean)
const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../apps')

type Mode = 'production' | 'development'

/**
 * Builds an app with its own Vite. `production` is what users ship; `development` keeps React's
 * StrictMode double effects and the registry's `dev` checks (throws, warnings) on in the browser.
 */
function build(app: string, mode: Mode): string {
  const dir = join(appsDir, app)
  const vite = join(
    dirname(createRequire(join(dir, 'package.json')).resolve('vite/package.json')),
    'bin/vite.js',
  )
  const outDir = join(dir, 'node_modules/.cache/toolmark-e2e', mode)
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: mode },
  })
  return outDir
}

let browser: Browser

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
})

afterAll(async () => {
  await browser?.close()
})

const texts = (page: Page, testId: string) => page.getByTestId(testId).allTextContents()
const text = async (page: Page, testId: string) =>
  (await page.getByTestId(testId).textContent())?.trim() ?? ''
const tools = (page: Page) => texts(page, 'manifest-tool')
/** The agent's view of the page's tools, as received in bridge `manifest` messages. */
const agentTools = async (page: Page) => (await text(page, 'agent-tools')).split(',').filter(Boolean)

const cases = apps.flatMap((app) =>
  (['production', 'development'] as const).map((mode) => [app, mode] as const),
)

describe.each(cases)('%s (%s build)', (app, mode) => {
  let server: Awaited<ReturnType<typeof serveStatic>>
  let page: Page
  let problems: string[]
  let outDir: string

  beforeAll(async () => {
    outDir = build(app, mode)
    server = await serveStatic(outDir)
  })

  afterAll(async () => {
    await server?.close()
  })

  beforeEach(async () => {
    problems = []
    page = await browser.newPage()
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning')
        problems.push(`console.${msg.type()}: ${msg.text()}`)
    })
  })

  afterEach(async () => {
    // No duplicate_name or any other registry error event (or dev warning), no page error, no console error.
    const events = await page.evaluate(
      () => (window as unknown as { toolmark: { errors: string[] } }).toolmark.errors,
    )
    await page.close()
    expect(events).toEqual([])
    expect(problems).toEqual([])
  })

  it('carries the development-only warnings in the development build only', async () => {
    await page.goto(`${server.url}/#/tools`)
    await page.getByTestId('page-tools').waitFor()
    const assets = join(outDir, 'assets')
    const js = readdirSync(assets)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(assets, f), 'utf8'))
      .join('\n')
    // A warning message (development only) and a misconfiguration message (every build).
    expect(js.includes('visible tools exceed the budget')).toBe(mode === 'development')
    expect(js).toContain('is already registered')
  })

  it('registers tools after mount and removes them after unmount', async () => {
    await page.goto(`${server.url}/#/tools`)
    await page.getByTestId('page-tools').waitFor()
    await expect.poll(() => page.getByTestId('manifest').getAttribute('data-rev')).not.toBeNull()
    expect(await tools(page)).toEqual([])

    await page.getByTestId('toggle-search').click()
    await expect.poll(() => tools(page)).toEqual(['search'])
    await expect.poll(() => agentTools(page)).toEqual(['search'])

    await page.getByTestId('toggle-search').click()
    await expect.poll(() => tools(page)).toEqual([])
    await expect.poll(() => agentTools(page)).toEqual([])

    await page.getByTestId('toggle-search').click()
    await expect.poll(() => tools(page)).toEqual(['search'])
  })

  it('shows a deferred confirmation card that approves and runs the tool', async () => {
    await page.goto(`${server.url}/#/challenges`)
    await expect.poll(() => tools(page)).toEqual(['challenges.delete', 'challenges.list'])
    await expect.poll(() => agentTools(page)).toEqual(['challenges.delete', 'challenges.list'])

    await page.getByTestId('agent-delete').click()
    await expect.poll(() => text(page, 'agent-result')).toBe('needs_confirmation')
    const card = page.getByTestId('confirmation-card')
    await card.waitFor()
    expect(await text(page, 'confirmation-summary')).toBe('Delete "Robotics"')
    expect(await text(page, 'confirmation-target')).toBe('Robotics')
    expect(await text(page, 'confirmation-warning')).toBe('This action cannot be undone.')
    expect(await text(page, 'confirmation-countdown')).toMatch(/^Expires in (10:00|9:[0-5]\d)$/)
    expect(await card.getByRole('button').allTextContents()).toEqual(['Reject', 'Delete'])
    expect(await texts(page, 'challenge')).toEqual(['Robotics', 'Chess', 'Poetry'])

    await card.getByRole('button', { name: 'Delete' }).click()
    await expect.poll(() => texts(page, 'challenge')).toEqual(['Chess', 'Poetry'])
    await expect.poll(() => text(page, 'agent-confirmed')).toBe('ok')
    await expect.poll(() => page.getByTestId('confirmation-card').count()).toBe(0)
  })

  it('answers a card with the keyboard: focus on Reject, Tab order, Escape rejects, Enter on Delete, focus returns', async () => {
    await page.goto(`${server.url}/#/challenges`)
    await expect.poll(() => agentTools(page)).toEqual(['challenges.delete', 'challenges.list'])
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '')
    const asker = page.getByTestId('agent-delete')

    await asker.focus()
    await page.keyboard.press('Enter')
    const card = page.getByRole('alertdialog', { name: 'Delete challenge' })
    await card.waitFor()
    const described = await card.getAttribute('aria-describedby')
    expect(await page.locator(`[id="${described}"]`).textContent()).toBe('Delete "Robotics"')
    expect(await card.getByRole('timer').getAttribute('aria-live')).toBe('off')
    // The card answers the user's own action, so focus moves to its safe button.
    await expect.poll(focused).toBe('Reject')
    await page.keyboard.press('Tab')
    expect(await focused()).toBe('Delete')
    await page.keyboard.press('Shift+Tab')
    expect(await focused()).toBe('Reject')

    await page.keyboard.press('Escape')
    await card.waitFor({ state: 'detached' })
    await expect.poll(() => text(page, 'agent-confirmed')).toBe('cancelled')
    expect(await texts(page, 'challenge')).toEqual(['Robotics', 'Chess', 'Poetry'])
    await expect.poll(() => asker.evaluate((el) => el === document.activeElement)).toBe(true)

    await page.keyboard.press('Enter')
    await card.waitFor()
    await expect.poll(focused).toBe('Reject')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await expect.poll(() => texts(page, 'challenge')).toEqual(['Chess', 'Poetry'])
    await expect.poll(() => text(page, 'agent-confirmed')).toBe('ok')
    await card.waitFor({ state: 'detached' })
    await expect.poll(() => asker.evaluate((el) => el === document.activeElement)).toBe(true)
  })

  it("drops a scope's tools and its pending confirmation on navigation away", async () => {
    await page.goto(`${server.url}/#/challenges`)
    await expect.poll(() => tools(page)).toEqual(['challenges.delete', 'challenges.list'])
    await page.getByTestId('agent-delete').click()
    await page.getByTestId('confirmation-card').waitFor()

    await page.getByTestId('nav-settings').click()
    await page.getByTestId('page-settings').waitFor()
    await expect.poll(() => tools(page)).toEqual(['settings.save', 'settings.theme'])
    await expect.poll(() => agentTools(page)).toEqual(['settings.save', 'settings.theme'])
    await expect.poll(() => page.getByTestId('confirmation-card').count()).toBe(0)
    // The agent learns the confirmation ended: the scope's disposal expired it.
    await expect.poll(() => text(page, 'agent-confirmed')).toBe('refused')

    await page.getByTestId('nav-tools').click()
    await expect.poll(() => tools(page)).toEqual([])
  })
})
