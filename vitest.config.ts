import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      // The server-MUST harness again, against three instances sharing PostgreSQL and Redis.
      'packages/server/vitest.shared.config.ts',
      'apps/*/vitest.config.ts',
      'docs/vitest.config.ts',
      // The conformance runner's own checks (the suite itself runs as `pnpm run conformance`).
      'tests/conformance/vitest.config.ts',
    ],
  },
})
