import { defineConfig } from 'vitest/config'

/**
 * End-to-end tests: the real agent server (embedded agent) serving the built demo, driven in Debian's
 * Chromium through playwright-core. Run with `pnpm --filter @toolmark-apps/demo test:e2e`; the root
 * `vitest run` does not pick these up (its projects are the `vitest.config.ts` files).
 */
export default defineConfig({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'demo-e2e',
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
