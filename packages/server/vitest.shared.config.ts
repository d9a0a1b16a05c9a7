import { defineProject } from 'vitest/config'

/**
 * The server-MUST harness against a three-instance deployment: the same test files as the `server` project,
 * each test on three server instances sharing one PostgreSQL and one Redis (started once for the project by
 * the global setup), requests spread over the instances as a load balancer without sticky sessions would.
 */
export default defineProject({
  resolve: { conditions: ['@toolmark/source'] },
  ssr: { resolve: { conditions: ['@toolmark/source'] } },
  test: {
    name: 'server-shared',
    environment: 'node',
    include: [
      'src/__tests__/security.test.ts',
      'src/__tests__/acceptance.test.ts',
      'src/__tests__/navigation.test.ts',
      'src/__tests__/rebinding.test.ts',
      'src/__tests__/relay-hardening.test.ts',
      'src/__tests__/page-order.test.ts',
      'src/__tests__/turn-order.test.ts',
      'src/__tests__/page-cache.test.ts',
      'src/__tests__/reconnect.test.ts',
      'src/__tests__/secrets.test.ts',
      'src/__tests__/reask.test.ts',
      'src/__tests__/streaming.test.ts',
      'src/__tests__/page-wait.test.ts',
      'src/__tests__/progress.test.ts',
      'src/__tests__/page-context.test.ts',
    ],
    globalSetup: ['src/__tests__/shared-deployment.setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
