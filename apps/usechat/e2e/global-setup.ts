import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { build } from 'vite'
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The page built once for the whole run. */
    staticDir: string
    /** Playwright's browser server: each test file connects to the one Chromium. */
    browserWSEndpoint: string
  }
}

const APP_DIR = fileURLToPath(new URL('..', import.meta.url))

/** Builds the page with Vite's JS API and launches one Chromium for all test files. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const work = await mkdtemp(join(tmpdir(), 'toolmark-usechat-e2e-'))
  const staticDir = join(work, 'dist')
  const started = performance.now()
  // Vitest sets NODE_ENV=test, which would bundle React's development build: build what users get.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({
      root: APP_DIR,
      configFile: join(APP_DIR, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir: staticDir, emptyOutDir: true },
    })
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
  console.info(`[e2e] usechat page built in ${Math.round(performance.now() - started)} ms`)
  const browser = await chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  })
  project.provide('staticDir', staticDir)
  project.provide('browserWSEndpoint', browser.wsEndpoint())
  return async () => {
    await browser.close()
    await rm(work, { recursive: true, force: true })
  }
}
