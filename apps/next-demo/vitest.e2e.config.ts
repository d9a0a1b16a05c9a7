import { defineConfig } from 'vitest/config'

/**
 * End-to-end tests: the built app (and one `next dev` run) served with the reference agent server's
 * API in one process, driven in Debian's Chromium through playwright-core. Run with
 * `pnpm --filter @toolmark-apps/next-demo test:e2e` (after `pnpm build`); the root `vitest run` does
 * not pick these up.
 */
export default defineConfig({
  resolve: { conditions: ['@toolmark/source'] },
  test: {
    name: 'next-demo-e2e',
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
})
