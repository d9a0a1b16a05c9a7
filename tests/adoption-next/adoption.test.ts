import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { guideCommand, guideFiles, guideMessage, guideOutcome } from './guide.ts'

/*
 * A newcomer adopting Toolmark in a fresh Next.js app from docs/framework/next.md alone: create-next-app,
 * the guide's tarball install line after `npm run pack:packages`, the guide's files (by the names on
 * their first lines), `npm run build`, `npm start`, then a real Chromium that types the guide's message,
 * approves the card and sees the result. Nothing here adds a step the guide does not show.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const GUIDE = readFileSync(join(ROOT, 'docs/framework/next.md'), 'utf8')
/**
 * The guide says `create-next-app@latest`; the test pins the newest the registry has (16.4.3), so a new
 * release cannot change what CI scaffolds unnoticed.
 */
const CREATE_NEXT_APP = 'create-next-app@16.4.3'
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const ENV = {
  ...process.env,
  CI: '1', // create-next-app asks nothing
  NEXT_TELEMETRY_DISABLED: '1',
  TURBO_TELEMETRY_DISABLED: '1',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  // npx installs create-next-app without asking (a person answers its "Ok to proceed?" with y); without a TTY and
  // with nothing in npm's cache it would otherwise cancel.
  npm_config_yes: 'true',
}

const timings: string[] = []

/** Runs `command` in bash in `cwd`; rejects with its output when it fails. Logs how long it took. */
function sh(label: string, command: string, cwd: string): Promise<string> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', command],
      { cwd, env: ENV, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        timings.push(`${label} ${((performance.now() - started) / 1000).toFixed(1)} s`)
        if (error) reject(new Error(`${label}: \`${command}\` failed\n${stdout}\n${stderr}`))
        else resolve(stdout)
      },
    )
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

let work: string
let app: string
let printed: string
let server: ChildProcess | undefined
let serverLog = ''
let browser: Browser | undefined
let origin: string

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolmark-adoption-'))
  const scaffold = guideCommand(GUIDE, 'npx create-next-app@')
  const [, name] = /^npx create-next-app@\S+ (\S+)/.exec(scaffold) ?? []
  if (!name)
    throw new Error(`No app folder in "${scaffold}"`)
    // The packages are not on the registry: the guide packs them from the clone. The scaffold's own
    // `npm install` is left to the guide's install line (one install, not two). Both at once.
  ;[printed] = await Promise.all([
    sh('pack:packages', 'npm run pack:packages', ROOT),
    sh(
      'create-next-app',
      `${scaffold.replace(/create-next-app@\S+/, CREATE_NEXT_APP)} --use-npm --skip-install --disable-git --yes`,
      work,
    ),
  ])
  app = join(work, name)

  const install = guideCommand(GUIDE, 'npm install <clone>/packs/')
  await sh('npm install', install.replaceAll('<clone>', ROOT), app)

  for (const [path, code] of guideFiles(GUIDE)) {
    mkdirSync(dirname(join(app, path)), { recursive: true })
    writeFileSync(join(app, path), code)
  }
  await sh('npm run build', 'npm run build', app)

  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  server = spawn('npm', ['start', '--', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: app,
    env: ENV,
    detached: true,
  })
  server.stdout?.on('data', (chunk: Buffer) => (serverLog += chunk))
  server.stderr?.on('data', (chunk: Buffer) => (serverLog += chunk))
  const deadline = Date.now() + 60_000
  for (;;) {
    const up = await fetch(`${origin}/settings`).then(
      (response) => response.ok,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline || server.exitCode !== null)
      throw new Error(`npm start did not serve:\n${serverLog}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-gpu'] })
})

afterAll(async () => {
  await browser?.close()
  // npm and next start's server: the whole process group this test started.
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
  console.info(`[adoption-next] ${timings.join(', ')}`)
  if (work) rmSync(work, { recursive: true, force: true })
})

it('pack:packages prints an install line that installs into an empty folder', async () => {
  const line = /^ {2}(npm install \S*toolmark-core-\S+\.tgz.*)$/m.exec(printed)?.[1]
  expect(line, printed).toBeDefined()
  const empty = join(work, 'empty')
  mkdirSync(empty)
  writeFileSync(join(empty, 'package.json'), '{ "name": "empty", "private": true, "type": "module" }\n')
  await sh('npm install (printed line)', line!, empty)
  const loaded = await sh(
    'import core',
    `node -e "import('@toolmark/core').then((m) => console.log(typeof m.createToolmark))"`,
    empty,
  )
  expect(loaded.trim()).toBe('function')
})

it("the guide's app asks the offline agent, shows the card, and runs the tool once it is approved", async () => {
  const page = await browser!.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(String(error)))
  // The page has told the server its tools (the bridge's first POST of a manifest) before the user types.
  const told = page.waitForResponse(
    (r) => r.url().endsWith('/toolmark/messages') && /"type":"manifest"/.test(r.request().postData() ?? ''),
    { timeout: 30_000 },
  )
  await page.goto(`${origin}/settings`)
  const chat = page.getByRole('region', { name: 'Chat with the agent' })
  await chat.and(page.locator('[data-status="ready"]')).waitFor({ timeout: 30_000 })
  expect((await told).ok()).toBe(true)

  const message = chat.getByRole('textbox', { name: 'Message' })
  await message.fill(guideMessage(GUIDE))
  await message.press('Enter')

  const card = page.getByRole('alertdialog')
  await card.waitFor({ timeout: 30_000 })
  expect(await card.textContent()).toContain('Switch to the dark theme')
  // The card answers the message just sent: focus is on Reject, so Tab then Enter approves.
  await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Reject')
  await page.keyboard.press('Tab')
  await page.keyboard.press('Enter')

  await page.getByRole('heading', { name: guideOutcome(GUIDE) }).waitFor({ timeout: 30_000 })
  await card.waitFor({ state: 'detached' })
  // The chat shows the call done (its part, in its latest state), and the agent answers last.
  const call = chat.locator('[data-toolmark-tool-part][data-tool="settings.setTheme"]')
  await expect.poll(() => call.getAttribute('data-state'), { timeout: 30_000 }).toBe('done')
  const lines = chat.getByTestId('agent-chat-message')
  await expect.poll(() => lines.last().getAttribute('data-role'), { timeout: 30_000 }).toBe('assistant')
  expect(errors).toEqual([])
  expect(serverLog).not.toMatch(/failed|Error/)
  await page.close()
})
