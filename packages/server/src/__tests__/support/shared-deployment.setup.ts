import type { TestProject } from 'vitest/node'
import { startPostgres, startRedis } from '../../../../../tests/support/servers.ts'

/*
 * The global setup of the `server-shared` test project: one real Redis and one real PostgreSQL 15 for the
 * whole project, on free loopback ports. The harness (test-server.ts) then runs each test against three server
 * instances that share them, each test in a schema and under a Redis key prefix of its own.
 */

/** Where the shared deployment's Redis and PostgreSQL listen (provided to the test files). */
export interface SharedDeployment {
  /** `redis://127.0.0.1:<port>` */
  redisUrl: string
  /** `postgres://toolmark@127.0.0.1:<port>/postgres` */
  postgresUrl: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set in the `server-shared` project only: the harness then starts three instances per test. */
    sharedDeployment: SharedDeployment | undefined
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [redis, postgres] = await Promise.all([startRedis(), startPostgres()])
  project.provide('sharedDeployment', { redisUrl: redis.url, postgresUrl: postgres.url })
  return async () => {
    await Promise.all([redis.stop(), postgres.destroy()])
  }
}
