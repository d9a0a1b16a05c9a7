import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis, type TestRedis } from '../../../../../tests/support/servers.ts'
import { createRedisCluster, type RedisCluster } from '../../redis.ts'
import type { ClusterMessage } from '../../relay/cluster.ts'
import type { ChatEvent } from '../../shared/contract.ts'

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

/** Resolves once `check` holds (else the test times out). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** Every key under `prefix`, with its type and time to live in ms (-1: none). */
async function keysOf(prefix: string): Promise<Array<{ key: string; type: string; ttl: number }>> {
  const keys = await admin.keys(`${prefix}*`)
  return Promise.all(
    keys.sort().map(async (key) => ({ key, type: await admin.type(key), ttl: await admin.pttl(key) })),
  )
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
  it('delivers each message to its instance, then acknowledges and deletes every entry it handled', async () => {
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
      // The acknowledgements and deletions leave with the reader's next read: then nothing is pending, and
      // nothing of the 50 messages stays in Redis.
      const inbox = `${prefix}inbox:b`
      await nothingPending(inbox)
      await until(async () => (await admin.xlen(inbox)) === 0)
      expect(await admin.xinfo('STREAM', inbox)).toContain(50) // entries-added: all 50 went through it
    })
  })

  it('trims every stream it writes: entries older than a minute go with the next write, about maxLen stay', async () => {
    const prefix = `test${++prefixes}:`
    const inbox = `${prefix}inbox:gone` // an instance that died: nobody reads its inbox
    const events = `${prefix}events`
    const old = (conversationId: string) => JSON.stringify({ kind: 'turn-ended', conversationId })
    await admin.xadd(inbox, '1000-0', 'm', old('old'))
    await admin.xadd(events, '1000-0', 'i', 'x', 'b', JSON.stringify({ kind: 'page', conversationId: 'old' }))
    const a = createRedisCluster({ url: redis.url, prefix, instance: 'a', maxLen: 100, log: () => {} })
    try {
      await a.send('gone', { kind: 'turn-ended', conversationId: 'new' })
      await a.broadcast!({ kind: 'page', conversationId: 'new' })
      const fields = async (key: string) => (await admin.xrange(key, '-', '+')).map(([, f]) => f.at(-1))
      expect(await fields(inbox)).toEqual([old('new')])
      expect(await fields(events)).toEqual([JSON.stringify({ kind: 'page', conversationId: 'new' })])
      // A flood is cut to about maxLen (MAXLEN ~ trims whole nodes of 100 entries).
      await Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          a.send('gone', { kind: 'turn-ended', conversationId: `c${i}` }),
        ),
      )
      expect(await admin.xlen(inbox)).toBeLessThanOrEqual(300)
      // Nobody renews a dead instance's inbox: it expires a minute after the last write.
      const ttl = await admin.pttl(inbox)
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(60_000)
    } finally {
      await a.close()
    }
  })

  it('gives every key it writes an expiry, and deletes the chat events an instance read', async () => {
    await pair(async (a, b, prefix) => {
      let events = 0
      b.onEvent(() => events++)
      let messages = 0
      a.onMessage(() => {
        messages++
      })
      await b.watch!('x')
      a.hold('client:p', 'v')
      expect(await a.claim('turn:x')).toBe(true)
      await a.ping() // the hold is written before the ping is answered (one connection)
      for (let i = 0; i < 20; i++) a.publish('x', { type: 'busy', busy: i % 2 === 0 })
      await a.broadcast!({ kind: 'page', conversationId: 'x' })
      await b.send('a', { kind: 'turn-ended', conversationId: 'x' })
      await until(async () => events === 20 && messages === 1)
      // B's own event stream had the 20 events: each is deleted once B read it.
      await until(async () => (await admin.xlen(`${prefix}events:b`)) === 0)
      const keys = await keysOf(prefix)
      expect(keys.map((k) => k.key)).toEqual(
        ['client:p', 'events', 'events:b', 'inbox:a', 'inbox:b', 'turn:x', 'watch:x'].map((k) => prefix + k),
      )
      for (const { key, ttl } of keys) expect({ key, expires: ttl > 0 }).toEqual({ key, expires: true })
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

  it("sends a conversation's chat events only to the instances watching it, from their watch on", async () => {
    const prefix = `test${++prefixes}:`
    const [a, b, c] = ['a', 'b', 'c'].map((instance) =>
      createRedisCluster({ url: redis.url, prefix, instance, log: () => {} }),
    ) as [RedisCluster, RedisCluster, RedisCluster]
    try {
      const got = { b: [] as string[], c: [] as string[] }
      const arrived: Array<() => void> = []
      const listen = (cluster: RedisCluster, into: string[]) =>
        cluster.onEvent((conversationId, event) => {
          into.push(`${conversationId} ${event.type === 'busy' ? event.busy : event.type}`)
          for (const wake of arrived.splice(0)) wake()
        })
      listen(b, got.b)
      listen(c, got.c)
      const until = async (done: () => boolean) => {
        while (!done()) await new Promise<void>((resolve) => arrived.push(resolve))
      }
      const busy = (value: boolean): ChatEvent => ({ type: 'busy', busy: value })
      await b.watch!('x')
      a.publish('y', busy(true)) // watched by nobody
      a.publish('x', busy(true))
      await until(() => got.b.length === 1)
      await c.watch!('x')
      a.publish('x', busy(false))
      await until(() => got.b.length === 2 && got.c.length === 1)
      // C saw only what was published after it watched; B never saw the unwatched conversation.
      expect(got).toEqual({ b: ['x true', 'x false'], c: ['x false'] })
      b.unwatch!('x')
      // The unwatch is not awaited (it leaves on B's connection): publish once Redis has it.
      while ((await admin.zscore(`${prefix}watch:x`, 'b')) !== null)
        await new Promise((resolve) => setTimeout(resolve, 10))
      a.publish('x', busy(true))
      await until(() => got.c.length === 2)
      expect(got).toEqual({ b: ['x true', 'x false'], c: ['x false', 'x true'] })
    } finally {
      await Promise.all([a.close(), b.close(), c.close()])
    }
  })

  it('sends chat events to every instance for a while after Redis restarted empty, while the watches are made again', async () => {
    await pair(async (a, b, prefix) => {
      const got: string[] = []
      let arrived: () => void = () => {}
      b.onEvent((conversationId) => {
        got.push(conversationId)
        arrived()
      })
      await b.watch!('x')
      await redis.stop()
      await redis.start()
      admin.disconnect()
      admin = new Redis(redis.url)
      // Both are connected again and B watched again; then B's watch is lost (as if it had not come back yet).
      for (;;) {
        const ready = await Promise.all([a.ping(), b.ping()]).then(
          () => true,
          () => false,
        )
        if (ready && (await admin.exists(`${prefix}watch:x`)) === 1) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await admin.del(`${prefix}watch:x`)
      const delivered = new Promise<void>((resolve) => {
        arrived = resolve
      })
      a.publish('x', { type: 'busy', busy: true })
      await delivered
      expect(got).toEqual(['x'])
    })
  }, 20_000)

  it("renews a claim only while it is still this instance's: a renewal never takes it back from the instance that took it over", async () => {
    await pair(async (a, b, prefix) => {
      a.hold('client:x')
      await a.ping()
      expect((await b.holder('client:x'))?.instance).toBe('a')
      // The page spoke on B's socket: B takes the claim over.
      b.hold('client:x')
      await b.ping()
      // A's heartbeat renews what it believes it holds: the claim stays B's.
      a.renew('client:x')
      await a.ping()
      expect((await a.holder('client:x'))?.instance).toBe('b')
      // A renewal keeps its own claim alive, and makes it again once it lapsed (nobody else took it).
      b.renew('client:x')
      await b.ping()
      expect(await admin.pttl(`${prefix}client:x`)).toBeGreaterThan(10_000)
      await admin.del(`${prefix}client:x`)
      b.renew('client:x')
      await b.ping()
      expect((await a.holder('client:x'))?.instance).toBe('b')
    })
  })

  it('keeps a set of instances (the unknown page connections of a conversation): joined, left, lapsed', async () => {
    await pair(async (a, b, prefix) => {
      a.join('unknown:x')
      b.join('unknown:x')
      await Promise.all([a.ping(), b.ping()])
      expect((await a.members('unknown:x')).sort()).toEqual(['a', 'b'])
      b.leave('unknown:x')
      await b.ping()
      expect(await a.members('unknown:x')).toEqual(['a'])
      // A member that stopped renewing lapses (its score is when it does).
      await admin.zadd(`${prefix}unknown:x`, 1, 'a')
      expect(await b.members('unknown:x')).toEqual([])
    })
  })

  it('closes while Redis is down, without waiting for it to come back', async () => {
    const a = createRedisCluster({
      url: redis.url,
      prefix: `test${++prefixes}:`,
      instance: 'a',
      log: () => {},
    })
    await a.ping()
    await a.watch!('x')
    await redis.stop()
    try {
      // Its readers are reconnecting, each with a blocking read queued: close() gives those up.
      await new Promise((resolve) => setTimeout(resolve, 300))
      await a.close()
    } finally {
      await redis.start()
      admin.disconnect()
      admin = new Redis(redis.url)
    }
  }, 10_000)
})
