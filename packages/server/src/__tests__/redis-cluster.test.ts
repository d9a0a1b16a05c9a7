import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis, type TestRedis } from '../../../../tests/support/servers.ts'
import { createRedisCluster, type RedisCluster } from '../redis.ts'
import type { ClusterMessage } from '../relay/cluster.ts'

// One real Redis for the file; every test uses a key prefix of its own.
let redis: TestRedis
let admin: Redis
let prefixes = 0

beforeAll(async () => {
  redis = await startRedis()
  admin = new Redis(redis.url)
}, 30_000)
afterAll(async () => {
  admin?.disconnect()
  await redis?.stop()
})

/** Two coordinators on the same Redis, closed when the test ends. */
async function pair(
  body: (a: RedisCluster, b: RedisCluster, prefix: string) => Promise<void>,
): Promise<void> {
  const prefix = `test${++prefixes}:`
  const a = createRedisCluster({ url: redis.url, prefix, instance: 'a', log: () => {} })
  const b = createRedisCluster({ url: redis.url, prefix, instance: 'b', log: () => {} })
  try {
    await body(a, b, prefix)
  } finally {
    await Promise.all([a.close(), b.close()])
  }
}

/** Resolves once the inbox's consumer group has no entry read but not acknowledged (else the test times out). */
async function nothingPending(inbox: string): Promise<void> {
  for (;;) {
    const [pending] = (await admin.xpending(inbox, 'relay')) as [number]
    if (pending === 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('the Redis coordinator', () => {
  it('delivers each message to its instance and acknowledges every entry it handled', async () => {
    await pair(async (a, b, prefix) => {
      const got: string[] = []
      let all: () => void = () => {}
      const done = new Promise<void>((resolve) => {
        all = resolve
      })
      b.onMessage((message) => {
        if (message.kind === 'turn-ended') got.push(message.conversationId)
        if (got.length === 50) all()
      })
      const sent = Array.from({ length: 50 }, (_, i) => `c${i}`)
      for (const conversationId of sent) await a.send('b', { kind: 'turn-ended', conversationId })
      await done
      expect(got).toEqual(sent)
      // The acknowledgements leave with the reader's next read: once it is sent, nothing is pending.
      const inbox = `${prefix}inbox:b`
      await nothingPending(inbox)
      expect(await admin.xlen(inbox)).toBe(50)
    })
  })

  it('does not acknowledge an entry whose handler failed, and hands it to the handler again', async () => {
    await pair(async (a, b, prefix) => {
      const tries: ClusterMessage[] = []
      let again: () => void = () => {}
      const retried = new Promise<void>((resolve) => {
        again = resolve
      })
      b.onMessage((message) => {
        tries.push(message)
        if (tries.length === 1) throw new Error('the database is down')
        again()
      })
      await a.send('b', { kind: 'turn-ended', conversationId: 'c1' })
      await retried
      expect(tries).toEqual([
        { kind: 'turn-ended', conversationId: 'c1' },
        { kind: 'turn-ended', conversationId: 'c1' },
      ])
      const inbox = `${prefix}inbox:b`
      await nothingPending(inbox)
    })
  }, 20_000)
})
