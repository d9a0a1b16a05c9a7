// @vitest-environment node
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type StaticServer, startStaticServer } from '../../../../tests/support/static-server.ts'

/*
 * "Import session" in real Chromium with a hostile file (one a user was sent): every string of it
 * carries markup that runs script if it is ever parsed as HTML. Nothing may run, and the panel
 * shows each string literally.
 */

/** Sets `window.pwned` and opens a dialog when it runs. */
const PAYLOAD = `<img src=x onerror="window.pwned=1;alert(1)"><svg onload="window.pwned=2">`
const ATTR = `"><img src=x onerror="window.pwned=3">`

const hostile = {
  format: 'toolmark-devtools-session',
  version: 1,
  revisions: [
    {
      rev: PAYLOAD,
      at: 0,
      tools: [
        {
          name: `tool${ATTR}`,
          description: PAYLOAD,
          hints: { [PAYLOAD]: true },
          scope: PAYLOAD,
          needsConfirmation: false,
          callers: ['inapp'],
          inputSchema: {},
        },
      ],
      diff: { added: [PAYLOAD], removed: [], changed: [{ name: PAYLOAD, fields: [PAYLOAD] }] },
    },
  ],
  calls: [
    {
      callId: ATTR,
      tool: PAYLOAD,
      caller: PAYLOAD,
      input: { note: PAYLOAD },
      startedAt: 0,
      durationMs: 1,
      queuedMs: 2,
      traceId: PAYLOAD,
      result: { status: 'ok', data: PAYLOAD },
      issues: [{ path: PAYLOAD, message: PAYLOAD }],
      decision: { kind: `x${ATTR}`, code: PAYLOAD, reason: PAYLOAD },
      confirmations: [
        {
          confirmId: PAYLOAD,
          mode: PAYLOAD,
          why: PAYLOAD,
          summary: PAYLOAD,
          destructive: false,
          input: PAYLOAD,
          requestedAt: 0,
          expiresAt: 0,
          outcome: PAYLOAD,
          waitMs: PAYLOAD,
        },
      ],
    },
  ],
  errors: [{ at: 0, code: PAYLOAD, message: PAYLOAD, level: PAYLOAD, tool: PAYLOAD }],
  consumers: { [PAYLOAD]: { state: PAYLOAD, detail: PAYLOAD, list: [PAYLOAD] } },
}

let browser: Browser
let page: Page
let server: StaticServer
const dialogs: string[] = []

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./support/page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    conditions: ['@toolmark/source'],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  })
  server = await startStaticServer({
    '/index.html': '<!doctype html><title>app</title><script type="module" src="/page.js"></script>',
    '/page.js': bundle.outputFiles[0]!.text,
  })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  page = await browser.newPage()
  page.setDefaultTimeout(5000)
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
  await page.goto(`${server.origin}/index.html`)
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

it('"Import session" shows a hostile file as text: no script runs, every string shows literally', async () => {
  await page.evaluate(
    ([text, name]) =>
      (window as unknown as { importSession(t: string, n: string): void }).importSession(text, name),
    [JSON.stringify(hostile), `session${PAYLOAD}.json`] as const,
  )
  const shown: Record<string, string> = {}
  for (const tab of ['registry', 'calls', 'consumers']) {
    await page.evaluate((t) => (window as unknown as { showTab(t: string): void }).showTab(t), tab)
    // Open every call's details so what they hold is laid out (and images would load).
    await page.evaluate(() => {
      const root = document.querySelector('toolmark-devtools')!.shadowRoot!
      for (const d of root.querySelectorAll('details')) d.open = true
    })
    shown[tab] = await page.evaluate(
      (t) =>
        document.querySelector('toolmark-devtools')!.shadowRoot!.getElementById(`panel-${t}`)!.textContent!,
      tab,
    )
  }
  // Give an injected image's error event, an SVG load or a dialog the time to happen.
  await page.waitForTimeout(300)
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
  expect(dialogs).toEqual([])
  const markup = await page.evaluate(() => {
    const root = document.querySelector('toolmark-devtools')!.shadowRoot!
    return root.querySelectorAll('img, svg, script, iframe').length
  })
  expect(markup).toBe(0)

  const banner = await page.evaluate(
    () =>
      document.querySelector('toolmark-devtools')!.shadowRoot!.querySelector('[data-slot=banner]')!
        .textContent,
  )
  expect(banner).toContain(`Viewing the imported session session${PAYLOAD}.json (read-only).`)
  expect(shown.registry).toContain(`Current revision: ${PAYLOAD}`)
  expect(shown.registry).toContain(`tool${ATTR}`)
  expect(shown.registry).toContain(`added ${PAYLOAD}; changed ${PAYLOAD} (${PAYLOAD})`)
  expect(shown.calls).toContain(`${PAYLOAD} by ${PAYLOAD}: x${ATTR} (${PAYLOAD})`)
  expect(shown.calls).toContain(`Policy decision: ${PAYLOAD}`)
  expect(shown.calls).toContain(`${PAYLOAD} confirmation: card offered at`)
  expect(shown.calls).toContain(`Summary: ${PAYLOAD}`)
  expect(shown.calls).toContain(`Call id ${ATTR}, trace id ${PAYLOAD}.`)
  expect(shown.consumers).toContain(`${PAYLOAD}: ${PAYLOAD}; detail: ${PAYLOAD}; list: ${PAYLOAD}`)
  expect(shown.consumers).toContain(`: ${PAYLOAD} (${PAYLOAD})`)
})
