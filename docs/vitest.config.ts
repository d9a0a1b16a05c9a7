import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'docs',
    environment: 'node',
    include: ['__tests__/**/*.test.ts'],
    // The from-a-clone relay test builds @toolmark/core and @toolmark/mcp first when they are not built.
    testTimeout: 240_000,
  },
})
