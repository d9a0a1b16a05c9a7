import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'next',
    environment: 'happy-dom',
    include: ['src/**/__tests__/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/__tests__/setup.ts'],
    typecheck: {
      enabled: process.env.TOOLMARK_TYPES_CHECKED !== '1',
      include: ['src/**/__tests__/**/*.test-d.{ts,tsx}'],
      tsconfig: './tsconfig.json',
    },
  },
})
