import { defineConfig } from 'vitest/config'

/**
 * End-to-end tests: the example's server (Toolmark, the offline agent, the useChat route) serving the built
 * page, driven in Debian's Chromium through playwright-core. Run with `pnpm --filter @toolmark-apps/usechat test:e2e`.
 */
export default defineConfig({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'usechat-e2e',
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
})
