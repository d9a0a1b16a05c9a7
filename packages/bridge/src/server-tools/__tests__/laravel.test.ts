import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * A real Laravel 8 app (Debian's php-laravel-framework, under `php -S`) lists the tools and answers
 * their POSTs: its own CSRF middleware (XSRF-TOKEN cookie → X-XSRF-TOKEN header), validation (422 with
 * `errors`), `abort(403)`, a thrown exception (500) and a redirect. The page runs in Chromium, served
 * by Laravel, so cookies and the same-origin rule are the browser's own.
 */

const LARAVEL = '/usr/share/php/Illuminate/autoload.php'
const hasLaravel = !spawnSync('php', ['--version']).error && existsSync(LARAVEL)
if (!hasLaravel && process.env.CI === 'true') {
  throw new Error(
    'php-cli and php-laravel-framework are required in CI (apt-get install php-laravel-framework)',
  )
}

let php: ChildProcess | undefined
let browser: Browser
let page: Page
let work = ''

async function startLaravel(env: Record<string, string>): Promise<string> {
  const app = fileURLToPath(new URL('./laravel-app', import.meta.url))
  const child = spawn(
    'php',
    ['-S', '127.0.0.1:0', '-t', join(app, 'public'), join(app, 'public/index.php')],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  php = child
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const url = /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/.exec(out)?.[1]
      if (url) resolve(url)
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => reject(new Error(`php -S exited (${code}): ${out}`)))
  })
}

beforeAll(async () => {
  if (!hasLaravel) return
  work = await mkdtemp(join(tmpdir(), 'toolmark-laravel-'))
  for (const dir of [
    'storage/framework/sessions',
    'storage/framework/views',
    'storage/framework/cache',
    'storage/logs',
  ])
    await mkdir(join(work, dir), { recursive: true })
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./laravel-page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    conditions: ['@toolmark/source'],
    write: false,
    logLevel: 'silent',
  })
  const pageJs = join(work, 'page.js')
  await writeFile(pageJs, bundle.outputFiles[0]!.text)
  const url = await startLaravel({ TOOLMARK_RUNTIME: work, TOOLMARK_PAGE_JS: pageJs })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  page = await browser.newPage()
  page.setDefaultTimeout(10_000)
  await page.goto(url)
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
  await page.evaluate(() => (window as unknown as { loaded: Promise<unknown> }).loaded)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  php?.kill()
  if (work) await rm(work, { recursive: true, force: true })
})

type Call = (tool: string, input: unknown, registry?: 'tm' | 'noCsrf') => Promise<unknown>
const call: Call = (tool, input, registry = 'tm') =>
  page.evaluate(
    ([t, i, r]) =>
      (window as unknown as Record<string, { call(n: string, i: unknown, o: object): Promise<unknown> }>)[
        r as string
      ]!.call(t as string, i, { caller: 'test' }),
    [tool, input, registry] as const,
  )

describe.runIf(hasLaravel)('server-declared tools against a real Laravel app in Chromium', () => {
  it('registers the listed tools and POSTs with the CSRF header Laravel checks', async () => {
    const names = await page.evaluate(() =>
      (window as unknown as { tm: { manifest(): { tools: { name: string }[] } } }).tm
        .manifest()
        .tools.map((t) => t.name),
    )
    expect(names).toEqual(['challenges.crash', 'challenges.create', 'challenges.delete', 'challenges.moved'])
    expect(await call('challenges.create', { title: 'Robots', pin: '1234' })).toEqual({
      status: 'ok',
      data: { id: 7, title: 'Robots' },
    })
  })

  it("maps Laravel's 422 errors to invalid issues at their paths", async () => {
    expect(await call('challenges.create', { title: 'ab', pin: '12' })).toEqual({
      status: 'invalid',
      issues: [
        { path: 'title', message: 'The title must be at least 3 characters.' },
        { path: 'pin', message: 'The pin must be 4 digits.' },
      ],
    })
    expect(await call('challenges.create', { title: 'taken' })).toEqual({
      status: 'invalid',
      issues: [{ path: 'title', message: 'The selected title is invalid.' }],
    })
  })

  it('validates with the JSON Schema before sending (no request for a bad input)', async () => {
    expect(await call('challenges.create', { nope: 1 })).toEqual({
      status: 'invalid',
      issues: [
        { path: 'title', message: 'Missing required property' },
        { path: 'nope', message: 'Unknown property' },
      ],
    })
  })

  it('403 is refused not_allowed; 419 (no CSRF header), 500 and redirects are error "Tool failed"', async () => {
    expect(await call('challenges.delete', {})).toMatchObject({ status: 'refused', code: 'not_allowed' })
    expect(await call('challenges.create', { title: 'Robots' }, 'noCsrf')).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(await call('challenges.crash', {})).toEqual({ status: 'error', message: 'Tool failed' })
    expect(await call('challenges.moved', {})).toEqual({ status: 'error', message: 'Tool failed' })
  })
})
