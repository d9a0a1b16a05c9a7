import { defineProject } from 'vitest/config'

export default defineProject({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'conformance',
    environment: 'node',
    include: ['src/**/__tests__/**/*.test.ts'],
  },
})
