import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'inertia-demo',
    environment: 'node',
    include: ['src/__tests__/**/*.test.ts'],
  },
})
