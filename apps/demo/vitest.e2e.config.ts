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
    // One worker runs the files in turn and keeps the server's module graph between them: importing
    // the agent server's sources is the slowest part of a file's setup. Each file starts its own server.
    fileParallelism: false,
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
