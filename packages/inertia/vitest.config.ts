import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'inertia',
    environment: 'happy-dom',
    include: ['src/**/__tests__/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/__tests__/setup.ts'],
    typecheck: {
      enabled: true,
      include: ['src/**/__tests__/**/*.test-d.{ts,tsx}'],
      tsconfig: './tsconfig.json',
    },
  },
})
