import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'forms',
    environment: 'node',
    include: ['src/**/__tests__/**/*.test.ts'],
    typecheck: {
      enabled: process.env.TOOLMARK_TYPES_CHECKED !== '1',
      include: ['src/**/__tests__/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    testTimeout: 20_000,
  },
})
