import { defineConfig } from 'vitest/config'

/**
 * The Inertia demo in Debian's Chromium against the real Laravel 8 backend (scripts/serve.ts).
 * Not a root vitest project: the plain `vitest run` never starts a browser or PHP.
 */
export default defineConfig({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'e2e-inertia-demo',
    include: ['e2e/**/*.spec.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // `expect.poll` waits as long as the spec's `until` (10 s): PHP on a loaded machine can take over the 1 s default.
    expect: { poll: { timeout: 10_000, interval: 50 } },
  },
})
