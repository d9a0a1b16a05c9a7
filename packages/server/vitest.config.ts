import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'server',
    environment: 'node',
    include: ['src/**/__tests__/**/*.test.ts'],
    // Needs three instances: run by the `server-shared` project (vitest.shared.config.ts) only.
    exclude: ['src/relay/__tests__/page-order.test.ts'],
    testTimeout: 20_000,
    // Type tests of the public surface and the ports (`Store`, `Provider`).
    typecheck: {
      enabled: process.env.TOOLMARK_TYPES_CHECKED !== '1',
      include: ['src/**/__tests__/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
  },
})
