import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { DemoPage, iconStatus } from '../../demo/e2e/harness.ts'
import { usableAt, VIEWPORTS } from '../../demo/e2e/layout.ts'
import { type RunningApp, startApp } from './app.ts'

/*
 * What a first run of `npm run demo:next` meets: the Vite demo's layout at each viewport (the chat is a
 * tab on a phone), the page's data across a reload, an undo from the page in the chat, no failed
 * request, and Ctrl+C stopping `next start` cleanly.
 */

const SHOTS =
  process.env.TOOLMARK_SCREENSHOT_DIR ?? fileURLToPath(new URL('./__screenshots__', import.meta.url))
const APP_DIR = fileURLToPath(new URL('..', import.meta.url))

let browser: Browser
let app: RunningApp

beforeAll(async () => {
  ;[browser, app] = await Promise.all([chromium.connect(inject('browserWSEndpoint')), startApp()])
  mkdirSync(SHOTS, { recursive: true })
})
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

const card = (page: Page, tool: string) => page.locator(`[data-testid="confirm-card"][data-tool="${tool}"]`)
const item = (page: Page, name: string) => page.locator(`[data-testid="challenge-item"][data-name="${name}"]`)

describe.each(VIEWPORTS)('$name ($width × $height): the Vite demo’s layout', (viewport) => {
  test('usable: list visible, a card approved, the Undo bar beside (never over) the card and input', async () => {
    const demo = await DemoPage.open(browser, app.url, '/challenges', {
      viewport: { width: viewport.width, height: viewport.height },
      isMobile: viewport.phone,
      hasTouch: viewport.phone,
    })
    try {
      await usableAt(demo, viewport, join(SHOTS, `next-demo-${viewport.name}.png`))
      if (viewport.phone) {
        // The Agent tab counts the cards waiting for the user.
        await demo.page.getByTestId('pane-chat').click()
        await demo.ask('Create a challenge called Kites')
        await card(demo.page, 'challenges.create').waitFor()
        await demo.page.getByTestId('pane-page').click()
        expect(await demo.page.getByTestId('pane-chat-waiting').textContent()).toMatch(/^1\b/)
      }
    } finally {
      await demo.close()
    }
  })
})

describe('the page’s data and the conversation survive a reload together', () => {
  test('a challenge created from the chat is still there after a reload, and the agent finds it', async () => {
    const demo = await DemoPage.open(browser, app.url, '/challenges')
    const { page } = demo
    try {
      await demo.ask('Create a challenge called Kites')
      await card(page, 'challenges.create').getByTestId('confirm-approve').click()
      await item(page, 'Kites').waitFor()

      const from = demo.frames.length
      await demo.reload()
      await item(page, 'Kites').waitFor()
      await demo.ask('Search for kites')
      expect(await demo.toolResult('challenges.search', from)).toMatchObject({
        status: 'ok',
        data: { results: [{ name: 'Kites' }] },
      })
    } finally {
      await demo.close()
    }
  })

  test('a rename on the challenge’s page is kept across a reload', async () => {
    const demo = await DemoPage.open(browser, app.url, '/challenges')
    const { page } = demo
    try {
      const from = demo.frames.length
      await item(page, 'Chess Openings').getByTestId('challenge-link').click()
      await demo.waitForTool('challenge.rename', from)
      await demo.ask('Rename this challenge to Chess Endgames')
      await card(page, 'challenge.rename').getByTestId('confirm-approve').click()
      await page.locator('#challenge-heading', { hasText: 'Chess Endgames' }).waitFor()

      await page.reload()
      await page.locator('#challenge-heading', { hasText: 'Chess Endgames' }).waitFor()
      await page.getByTestId('nav-challenges').click()
      await item(page, 'Chess Endgames').waitFor()
      expect(await demo.challengeNames()).toEqual([
        'Chess Endgames',
        'Marathon Training',
        'Watercolor Sketching',
      ])
    } finally {
      await demo.close()
    }
  })
})

test('an undo from the page adds a line to the chat', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const { page } = demo
  try {
    await demo.ask('Delete the challenge Marathon Training')
    await card(page, 'challenges.delete').getByTestId('confirm-delete').click()
    await item(page, 'Marathon Training').waitFor({ state: 'detached' })
    await page.getByTestId('undo-delete').click()
    await item(page, 'Marathon Training').waitFor()
    const notes = page.locator('[data-testid="chat-message"][data-source="page"]')
    await notes.waitFor()
    expect(await notes.textContent()).toMatch(/Undone.*Marathon Training/)
  } finally {
    await demo.close()
  }
})

test('no request fails while the demo loads and navigates (no favicon 404)', async () => {
  const context = await browser.newContext()
  const page = await context.newPage()
  const failed: string[] = []
  page.on('requestfailed', (request) => {
    // Leaving a page aborts its open event stream and prefetches: that is the browser, not a failure.
    const error = request.failure()?.errorText
    if (error !== 'net::ERR_ABORTED') failed.push(`${request.url()}: ${error}`)
  })
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.url()}: HTTP ${response.status()}`)
  })
  await page.goto(new URL('/challenges', app.url).href)
  await page.getByTestId('chat-input').waitFor()
  await page.getByTestId('nav-settings').click()
  await page.waitForURL('**/settings')
  await page.goto(new URL('/settings', app.url).href)
  await page.getByTestId('chat-input').waitFor()
  // The browser asks for the icon after the load: wait until it is idle.
  await page.waitForLoadState('networkidle')
  expect(failed).toEqual([])
  expect(await iconStatus(page)).toMatchObject({ status: 200 })
  await context.close()
})

test('every tool on every page has a title (the card’s heading)', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const untitled = (): string[] => {
    const manifest = demo.frames.findLast((f) => f.direction === 'sent' && f.message.type === 'manifest')
    const tools = (manifest?.message.tools ?? []) as Array<{ name: string; title?: unknown }>
    return tools.filter((t) => typeof t.title !== 'string' || t.title.trim() === '').map((t) => t.name)
  }
  try {
    expect(untitled()).toEqual([])
    const from = demo.frames.length
    await item(demo.page, 'Chess Openings').getByTestId('challenge-link').click()
    await demo.waitForTool('challenge.rename', from)
    expect(untitled()).toEqual([])
    await demo.goto('/settings')
    expect(untitled()).toEqual([])
  } finally {
    await demo.close()
  }
})

test('Ctrl+C stops the `next start` that `npm run demo:next` runs: Next exits 130 (128 + SIGINT), no error', async () => {
  // The command scripts/demo-next.sh ends with (Next's own command under node, no pnpm wrapper to
  // report the signal as a failure), in its own process group as a terminal runs it: Ctrl+C sends
  // SIGINT to the whole group.
  const script = readFileSync(new URL('../../../scripts/demo-next.sh', import.meta.url), 'utf8')
  const command = script.trimEnd().split('\n').at(-1) ?? ''
  expect(script).toContain('\ncd apps/next-demo\n')
  expect(command).toBe('exec node node_modules/next/dist/bin/next start -H "$HOST" -p "$PORT"')
  const child = spawn('bash', ['-c', command], {
    cwd: APP_DIR,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      HOST: '127.0.0.1',
      PORT: '0',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8')
  })
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  await expect.poll(() => output, { timeout: 60_000, interval: 100 }).toMatch(/Ready in/)
  const url = /- Local:\s+(http:\/\/\S+)/.exec(output)?.[1]
  // The agent answers from the route handlers of that one process.
  const created = await fetch(new URL('/api/conversations', url), { method: 'POST' })
  expect(created.status).toBe(201)
  const before = output.length
  process.kill(-child.pid!, 'SIGINT')
  // Next's own graceful stop: it closes its server, then exits with the signal's code, as a shell expects.
  expect(await exit).toBe(130)
  expect(output.slice(before)).not.toMatch(/error|unhandled/i)
}, 90_000)
