import { defineConfig } from 'vitest/config'

/**
 * The Next.js guide, followed as a newcomer would: `pnpm --filter @toolmark-tests/adoption-next test:e2e`
 * (CI runs it with the other end-to-end suites; the root `vitest run` does not pick it up). It needs the
 * npm registry (create-next-app, next, react, zod) and Debian's Chromium.
 */
export default defineConfig({
  test: {
    name: 'adoption-next',
    environment: 'node',
    include: ['*.test.ts'],
    testTimeout: 60_000,
    // Packing, scaffolding, installing and building the app: minutes on a busy machine.
    hookTimeout: 600_000,
  },
})
