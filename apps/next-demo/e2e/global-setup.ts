import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { chromium } from 'playwright-core'
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../demo/e2e/browser.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Playwright's browser server: each test file connects to the one Chromium. */
    browserWSEndpoint: string
  }
}

const APP_DIR = fileURLToPath(new URL('..', import.meta.url))
/** Where the Cache Components variant is built (the default build is `.next`, from `pnpm build`). */
export const CACHE_DIST_DIR = 'dist/e2e-cache-components'

async function nextBuild(env: Record<string, string>): Promise<void> {
  const started = performance.now()
  await promisify(execFile)(fileURLToPath(new URL('../node_modules/.bin/next', import.meta.url)), ['build'], {
    cwd: APP_DIR,
    env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...env },
    maxBuffer: 16 * 1024 * 1024,
  })
  console.info(`[e2e] next build ${JSON.stringify(env)} in ${Math.round(performance.now() - started)} ms`)
}

/**
 * Builds what the suite needs and launches one Chromium. The default build (`.next`) is the one
 * `pnpm build` made (turbo runs it before `test:e2e`); it is built here only when missing. The Cache
 * Components variant is always built fresh into its own folder.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const builds: Promise<void>[] = [
    nextBuild({ TOOLMARK_CACHE_COMPONENTS: '1', NEXT_DIST_DIR: CACHE_DIST_DIR }),
  ]
  if (!existsSync(`${APP_DIR}/.next/BUILD_ID`)) builds.push(nextBuild({}))
  for (const build of builds) await build
  const browser = await chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  })
  project.provide('browserWSEndpoint', browser.wsEndpoint())
  return async () => {
    await browser.close()
  }
}
