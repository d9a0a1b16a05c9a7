import { build } from 'esbuild'
import { type Browser, chromium, type Page } from 'playwright-core'
import { type StaticServer, startStaticServer } from '../../../../../tests/support/static-server.ts'

/** A Chromium page serving `html` with `entry` bundled by esbuild as `/page.js`. */
export interface BundlePage {
  page: Page
  origin: string
  /** Loads the page again (fresh state) and waits for `window.ready`. */
  reload(): Promise<void>
  close(): Promise<void>
}

/**
 * Bundles `entry` (TypeScript, resolved with the `@toolmark/source` condition so workspace
 * packages run from source) and opens it in Debian's Chromium, headless. `html` must load
 * `/page.js` as a module; the bundle sets `window.ready = true` when it is done.
 */
export async function openBundle(entry: string, html: string): Promise<BundlePage> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    conditions: ['@toolmark/source'],
    define: {
      'process.env.NODE_ENV': '"production"',
      __VUE_OPTIONS_API__: 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
    },
    logLevel: 'silent',
  })
  const server: StaticServer = await startStaticServer({
    '/index.html': html,
    '/page.js': bundle.outputFiles[0]!.text,
  })
  const browser: Browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  const page = await browser.newPage()
  // Fail a wait with its own message well before the test's timeout.
  page.setDefaultTimeout(5000)
  const reload = async (): Promise<void> => {
    await page.goto(`${server.origin}/index.html`)
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
  }
  return {
    page,
    origin: server.origin,
    reload,
    close: async () => {
      await browser.close()
      await server.close()
    },
  }
}
