import { createRequire } from 'node:module'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * The shared browser spec for apps/react-vite, apps/vue-vite and apps/svelte-vite. Each app's
 * `test:e2e` runs it for itself (`vitest run --config ../../tests/e2e-adapters/vitest.e2e.config.ts`);
 * from the repository root it runs for all three (`TOOLMARK_E2E_APPS=vue-vite` picks some).
 * Not a root vitest project: the plain `vitest run` never starts a browser.
 */
const here = dirname(fileURLToPath(import.meta.url))
const ALL = ['react-vite', 'vue-vite', 'svelte-vite']
const cwd = basename(process.cwd())
const apps = process.env.TOOLMARK_E2E_APPS ?? (ALL.includes(cwd) ? cwd : ALL.join(','))
const first = apps.split(',')[0] ?? 'react-vite'
// playwright-core is a devDependency of every app: resolve it from one of them.
const playwright = join(
  dirname(createRequire(resolve(here, '../../apps', first, 'package.json')).resolve('playwright-core')),
  'index.mjs',
)

export default defineConfig({
  root: here,
  resolve: { alias: { 'playwright-core': playwright } },
  test: {
    name: 'e2e-adapters',
    include: ['*.spec.ts'],
    environment: 'node',
    env: { TOOLMARK_E2E_APPS: apps },
    testTimeout: 30_000,
    hookTimeout: 180_000,
  },
})
