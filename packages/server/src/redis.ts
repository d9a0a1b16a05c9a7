/**
 * `@toolmark/server/redis`: the Redis coordinator (`ioredis`, an optional peer dependency; Node only) of
 * several server instances: which instance holds which page, calls and answers between instances, chat
 * events to all of them. Pair it with the PostgreSQL store (`@toolmark/server/postgres`).
 */

export { createRedisCluster, type RedisCluster, type RedisClusterOptions } from './cluster/redis.ts'
/** The shared-mode port the server's `cluster` option takes, and the messages instances send through it. */
export type { BroadcastMessage, Cluster, ClusterMessage } from './relay/cluster.ts'
