import { Redis } from 'ioredis'
import type { BroadcastMessage, Cluster, ClusterEvent, ClusterMessage } from '../relay/cluster.ts'
import { LEASE_MS } from '../relay/relay.ts'
import { escapeForLog } from '../shared/log.ts'

/** How {@link createRedisCluster} connects. */
export interface RedisClusterOptions {
  /** A Redis URL (`redis://host:6379`), e.g. `process.env.REDIS_URL`. */
  url: string
  /** This instance's id. Default a random UUID (one per process). */
  instance?: string
  /** Prefix of every key. Default `toolmark:`. */
  prefix?: string
  /**
   * Most entries kept per stream (an inbox, the chat events), trimmed approximately. Default 10 000. Entries
   * are also deleted once handled and trimmed once older than a minute, whichever comes first.
   */
  maxLen?: number
  /** How long a message to another instance is retried while Redis is unreachable. Default 30 000 ms. */
  deliveryTimeoutMs?: number
  /** Where connection problems are logged. Default `console.warn`. */
  log?: (line: string) => void
}

/** A {@link Cluster} on Redis, with its connections. */
export interface RedisCluster extends Cluster {
  /** Stops reading, gives up this instance's claims and closes the connections. */
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Deletes a claim only while it is still the one this instance wrote (compare-and-delete). */
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"

/**
 * Sets a claim only when the key is free or already this instance's (renewing it then): compare-and-set, so a
 * renewal never takes a claim back from the instance that took it over.
 */
const CLAIM =
  "local v = redis.call('get', KEYS[1]) if v == false then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) " +
  "return 1 elseif v == ARGV[1] then redis.call('pexpire', KEYS[1], ARGV[2]) return 1 else return 0 end"

/**
 * How long a watch of a conversation's chat events lives without renewal (the heartbeat renews it every
 * `LEASE_MS / 3`): long, so an instance cut off from Redis for a while still finds what was sent to it meanwhile
 * in its stream; an instance that died gets events in its stream that long, which then expires.
 */
const WATCH_MS = 60_000

/**
 * Marks this instance as watching a conversation's chat events until a time (Redis's clock plus ARGV[2] ms),
 * and keeps the set alive twice that long.
 */
const WATCH =
  "local t = redis.call('time') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) " +
  "redis.call('zadd', KEYS[1], now + tonumber(ARGV[2]), ARGV[1]) redis.call('pexpire', KEYS[1], 2 * tonumber(ARGV[2])) " +
  'return 1'

/**
 * Publishes a chat event: written to the event stream of each instance watching its conversation (the lapsed
 * ones dropped first), except the sender's; one command, so an instance whose watch ran before it gets it.
 * Each stream is bounded as {@link ADD} bounds one (ARGV[7] ms, ARGV[3] entries, expiry ARGV[6] ms).
 * The per-instance streams are not declared keys: this needs one Redis, not Redis Cluster.
 */
const PUBLISH =
  "local t = redis.call('time') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) " +
  "redis.call('zremrangebyscore', KEYS[1], '-inf', now) local n = 0 " +
  "local minid = string.format('%d', now - tonumber(ARGV[7])) " +
  "for _, to in ipairs(redis.call('zrange', KEYS[1], 0, -1)) do if to ~= ARGV[1] then " +
  "redis.call('xadd', ARGV[2] .. to, 'MINID', minid, '*', 'c', ARGV[4], 'e', ARGV[5]) " +
  "redis.call('xtrim', ARGV[2] .. to, 'MAXLEN', '~', ARGV[3]) " +
  "redis.call('pexpire', ARGV[2] .. to, ARGV[6]) n = n + 1 end end " +
  'return n'

/** The members of a set made with JOIN whose time has not run out (Redis's clock), the lapsed ones dropped. */
const MEMBERS =
  "local t = redis.call('time') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) " +
  "redis.call('zremrangebyscore', KEYS[1], '-inf', now) return redis.call('zrange', KEYS[1], 0, -1)"

/** How long an inbox entry that keeps failing is retried before it is dropped (logged). */
const GIVE_UP_MS = 60_000

/**
 * How long an entry stays in any stream at most. Every write trims the entries older than this (`MINID`),
 * and a stream nobody writes to (nor renews) expires this long after its last write. Inbox entries are
 * deleted as soon as they are handled, and chat events as soon as their instance read them; this bounds
 * the rest (an instance that died, an entry that kept failing).
 */
export const STREAM_RETENTION_MS = GIVE_UP_MS

/**
 * Appends one entry to a stream (KEYS[1]): entries older than ARGV[1] ms by Redis's clock are trimmed first
 * (`MINID`, exact), at most about ARGV[2] entries are kept (`MAXLEN ~`), and the stream expires ARGV[3] ms
 * after this write. ARGV[4..] are the entry's field/value pairs. Redis's clock, not the instance's: an
 * instance whose clock runs ahead never trims what was just written.
 */
const ADD =
  "local t = redis.call('time') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) " +
  "local id = redis.call('xadd', KEYS[1], 'MINID', string.format('%d', now - tonumber(ARGV[1])), '*', unpack(ARGV, 4)) " +
  "redis.call('xtrim', KEYS[1], 'MAXLEN', '~', ARGV[2]) redis.call('pexpire', KEYS[1], ARGV[3]) return id"
/** An entry read but not acknowledged this long is read again (its handler failed). */
const RETRY_IDLE_MS = 5_000

/**
 * The coordinator of several server instances on Redis (`ioredis`, an optional peer dependency; Node only).
 *
 * - Claims (which instance holds a page load's socket, or a page stream): `SET key "<instance>\n<value>" PX`
 *   when taken, renewed by the relay's heartbeat only while still this instance's (or free), deleted on close only
 *   while still this instance's.
 * - Messages to one instance (a call for the page it holds, an answer for the call it waits for, a page's POST):
 *   a Redis Stream per instance, `<prefix>inbox:<instance>`, read with a consumer group (`XREADGROUP`) and
 *   acknowledged once handled (one `XACK` for the entries of a read, sent with the next read in the same write, not
 *   awaited); an entry whose handling failed is read again (`XAUTOCLAIM`). Unlike
 *   pub/sub, an entry written while the reader is disconnected (Redis restarting, a network blip) waits in
 *   the stream until it reads again. Every message is idempotent at its receiver (a call id is answered once),
 *   so a repeated delivery changes nothing.
 * - Chat events to the instances that have a chat stream of the conversation open: each such instance
 *   watches the conversation (`<prefix>watch:<conversation>`, a sorted set of instances scored by when their
 *   watch lapses, renewed with the heartbeat), and a publish is one script that appends the event to the
 *   stream of each watcher, `<prefix>events:<instance>`. Broadcasts go to every instance on `<prefix>events`,
 *   and so do chat events for a while after a reconnect (a Redis that restarted empty has no watches until
 *   every instance made its own again).
 *   An instance reads both streams in one `XREAD` from the last ids it saw (no group), so a reconnecting
 *   reader misses nothing, and an instance without a chat stream of a conversation never reads its events.
 * - Bounds: every key expires. Claims live `LEASE_MS` unless renewed, watches a minute. An inbox entry is
 *   deleted (`XDEL`) once handled, an entry of an instance's own event stream once read; every write trims
 *   entries older than {@link STREAM_RETENTION_MS} and keeps about `maxLen`; a stream expires when nobody
 *   writes to it or renews it for that long (two minutes for event streams).
 */
export function createRedisCluster(options: RedisClusterOptions): RedisCluster {
  const instance = options.instance ?? crypto.randomUUID()
  const prefix = options.prefix ?? 'toolmark:'
  const maxLen = options.maxLen ?? 10_000
  const deliveryTimeoutMs = options.deliveryTimeoutMs ?? 30_000
  const log = options.log ?? ((line: string) => console.warn(line))
  const common = { maxRetriesPerRequest: null, enableAutoPipelining: true, lazyConnect: false } as const
  /** This instance's live claims (key → stored value), made again when Redis comes back empty. */
  const claims = new Map<string, string>()
  /** The sets this instance is a member of (see `join`), joined again when Redis comes back empty. */
  const joined = new Set<string>()
  /** The conversations whose chat events this instance watches, watched again on every heartbeat. */
  const watching = new Set<string>()
  // Commands answer within 2 s or reject (a caller never waits on a Redis that is down); readers block.
  const cmd = new Redis(options.url, { ...common, commandTimeout: 2000 })
  const inboxReader = new Redis(options.url, common)
  const eventReader = new Redis(options.url, common)
  let lastProblem = ''
  for (const connection of [cmd, inboxReader, eventReader])
    connection.on('error', (error: Error) => {
      // One line per kind of problem, not one per reconnect attempt.
      if (error.message === lastProblem) return
      lastProblem = error.message
      log(`[redis] ${escapeForLog(error.message)}`)
    })
  let connectedBefore = false
  /** Until then (after a reconnect), chat events are published to every instance, not to the watchers only. */
  let toAllUntil = 0
  cmd.on('ready', () => {
    lastProblem = ''
    // A Redis that restarted empty has lost every claim: this instance makes its own again at once.
    if (connectedBefore) {
      // Only where the key is free (or still this instance's): another instance may have taken it meanwhile.
      for (const [key, stored] of claims)
        cmd.eval(CLAIM, 1, `${prefix}${key}`, stored, LEASE_MS).catch(() => {})
      for (const key of joined) join(key).catch(() => {})
      for (const conversationId of watching) watch(conversationId).catch(() => {})
      // A Redis that restarted empty has lost the other instances' watches too, until they reconnect and make
      // them again: meanwhile this instance's chat events go to every instance, as broadcasts do.
      toAllUntil = Date.now() + LEASE_MS
    }
    connectedBefore = true
  })
  const watchKey = (conversationId: string) => `${prefix}watch:${conversationId}`
  // A set member is stored like a watch: scored by when it lapses, the set kept alive twice that long.
  const join = (key: string) => cmd.eval(WATCH, 1, `${prefix}${key}`, instance, LEASE_MS)
  const watch = (conversationId: string) => cmd.eval(WATCH, 1, watchKey(conversationId), instance, WATCH_MS)
  // Renewed with the heartbeat: the watch of an instance that died lapses WATCH_MS after its last renewal, and
  // its inbox STREAM_RETENTION_MS after its last renewal or write.
  const renewWatches = setInterval(() => {
    for (const conversationId of watching) watch(conversationId).catch(() => {})
    cmd.pexpire(inbox(instance), STREAM_RETENTION_MS).catch(() => {})
  }, LEASE_MS / 3)
  ;(renewWatches as { unref?: () => void }).unref?.()

  const inbox = (id: string) => `${prefix}inbox:${id}`
  /**
   * Appends an entry to a stream with every bound at once ({@link ADD}): older entries trimmed, about `maxLen`
   * kept, the stream expiring `ttlMs` after this write.
   */
  const add = (key: string, ttlMs: number, ...fields: string[]) =>
    cmd.eval(ADD, 1, key, STREAM_RETENTION_MS, maxLen, ttlMs, ...fields)
  const eventsKey = `${prefix}events`
  /** The stream of the chat events sent to one instance (those of the conversations it watches). */
  const eventsOf = (id: string) => `${prefix}events:${id}`
  const group = 'relay'
  const handlers: Array<(message: ClusterMessage) => Promise<void> | void> = []
  const eventHandlers: Array<(conversationId: string, event: ClusterEvent) => void> = []
  const broadcastHandlers: Array<(message: BroadcastMessage) => void> = []
  let closed = false
  let giveUp: () => void = () => {}
  /** Rejects when the coordinator closes. */
  const closing = new Promise<never>((_, reject) => {
    giveUp = () => reject(new Error('the Redis coordinator closed'))
  })
  closing.catch(() => {})
  /**
   * A reader's command, given up when the coordinator closes: a connection disconnected while it is
   * reconnecting never settles the commands queued on it, and close() waits for the read loops to end.
   */
  const whileOpen = <T>(command: Promise<T>): Promise<T> => {
    command.catch(() => {})
    return Promise.race([command, closing])
  }
  /**
   * Inbox entries handled but not acknowledged yet. Their `XACK` goes out with the reader's next command
   * (`XREADGROUP` or `XAUTOCLAIM`), in the same write on the same connection: no round trip of its own.
   */
  let handled: string[] = []
  /**
   * Queues the `XACK` and `XDEL` of the handled entries on the reader's connection, ahead of its next command:
   * an entry (a call's input on its way to the page among them) stays in Redis only until it is handled.
   */
  const acknowledge = () => {
    if (handled.length === 0) return
    const ids = handled
    handled = []
    // Not awaited: an entry whose XACK is lost is read again (XAUTOCLAIM), and a repeat changes nothing; one
    // whose XDEL is lost is trimmed after STREAM_RETENTION_MS.
    inboxReader.xack(inbox(instance), group, ...ids).catch(() => {})
    inboxReader.xdel(inbox(instance), ...ids).catch(() => {})
  }

  const handle = async (id: string, fields: string[]): Promise<void> => {
    const raw = fields[fields.indexOf('m') + 1]
    const at = Number(id.split('-')[0])
    try {
      if (raw === undefined) throw new Error('no message field')
      const message = JSON.parse(raw) as ClusterMessage
      for (const handler of handlers) await handler(message)
    } catch (error) {
      if (Date.now() - at < GIVE_UP_MS) {
        log(`[redis] inbox entry failed, will retry: ${escapeForLog(String(error))}`)
        return // not acknowledged: XAUTOCLAIM hands it back after RETRY_IDLE_MS
      }
      log(`[redis] inbox entry dropped after ${GIVE_UP_MS} ms of failures: ${escapeForLog(String(error))}`)
    }
    handled.push(id)
  }

  const ensureGroup = async () => {
    try {
      await whileOpen(inboxReader.xgroup('CREATE', inbox(instance), group, '0', 'MKSTREAM'))
    } catch (error) {
      if (!/BUSYGROUP/.test(String(error))) throw error
    }
    // The stream the group made has no expiry yet: it gets one at once (the heartbeat renews it).
    await whileOpen(inboxReader.pexpire(inbox(instance), STREAM_RETENTION_MS))
  }

  const readInbox = async () => {
    let lastClaim = Date.now()
    while (!closed) {
      try {
        // Auto-pipelined: the acknowledgements and this read leave in one write.
        acknowledge()
        const read = (await whileOpen(
          inboxReader.xreadgroup(
            'GROUP',
            group,
            instance,
            'COUNT',
            100,
            'BLOCK',
            1000,
            'STREAMS',
            inbox(instance),
            '>',
          ),
        )) as Array<[string, Array<[string, string[]]>]> | null
        for (const [, entries] of read ?? []) for (const [id, fields] of entries) await handle(id, fields)
        if (Date.now() - lastClaim >= RETRY_IDLE_MS) {
          lastClaim = Date.now()
          acknowledge()
          const [, entries] = (await whileOpen(
            inboxReader.xautoclaim(inbox(instance), group, instance, RETRY_IDLE_MS, '0-0', 'COUNT', 100),
          )) as [string, Array<[string, string[]] | null>]
          for (const entry of entries) if (entry) await handle(entry[0], entry[1])
        }
      } catch (error) {
        if (closed) return
        // A restarted Redis has no group (nor stream) any more: create them again, from the start.
        if (/NOGROUP/.test(String(error))) await ensureGroup().catch(() => {})
        else await sleep(250)
      }
    }
  }

  /** Hands one entry of an event stream to the handlers (a broadcast, or a chat event). */
  const deliver = (fields: string[]) => {
    const get = (name: string) => {
      const at = fields.indexOf(name)
      return at < 0 ? undefined : fields[at + 1]
    }
    if (get('i') === instance) return // delivered here already, when it was published
    try {
      const broadcast = get('b')
      if (broadcast !== undefined) {
        const message = JSON.parse(broadcast) as BroadcastMessage
        for (const handler of broadcastHandlers) handler(message)
        return
      }
      const event = JSON.parse(get('e') ?? 'null') as ClusterEvent
      for (const handler of eventHandlers) handler(get('c') ?? '', event)
    } catch (error) {
      log(`[redis] chat event dropped: ${escapeForLog(String(error))}`)
    }
  }

  /** The id of a stream's newest entry ('0-0' when it is empty): where a reader starting now begins. */
  const newest = async (key: string) => {
    const entries = (await whileOpen(eventReader.xrevrange(key, '+', '-', 'COUNT', 1))) as Array<
      [string, string[]]
    >
    return entries[0]?.[0] ?? '0-0'
  }

  // Two streams in one blocking read: the broadcasts (and chat events of instances that publish to all), and
  // the chat events sent to this instance only. Each is read from the last id seen, so a reconnect misses nothing.
  const mine = eventsOf(instance)
  /** Where the event reader starts: known before any watch is made, so nothing sent after one is skipped. */
  const starting = (async (): Promise<[string, string] | undefined> => {
    while (!closed) {
      try {
        return [await newest(eventsKey), await newest(mine)]
      } catch {
        await sleep(250) // Redis not up yet
      }
    }
    return undefined
  })()
  /** Entries of this instance's own event stream read but not deleted yet (deleted with the next read). */
  const read: string[] = []
  const readEvents = async () => {
    const last = await starting
    if (!last) return
    while (!closed) {
      try {
        // Only this instance reads its own stream: what it read is deleted, in the same write as the next read.
        if (read.length > 0) eventReader.xdel(mine, ...read.splice(0)).catch(() => {})
        const got = (await whileOpen(
          eventReader.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', eventsKey, mine, ...last),
        )) as Array<[string, Array<[string, string[]]>]> | null
        for (const [key, entries] of got ?? [])
          for (const [id, fields] of entries) {
            if (key === eventsKey) last[0] = id
            else {
              last[1] = id
              read.push(id)
            }
            deliver(fields)
          }
      } catch {
        if (closed) return
        await sleep(250)
      }
    }
  }

  const unwatch = (conversationId: string) => {
    if (!watching.delete(conversationId)) return
    cmd.zrem(watchKey(conversationId), instance).catch(() => {})
  }

  const reading = ensureGroup()
    .catch(() => {}) // Redis not up yet: the read loop creates the group once it is
    .then(() => Promise.all([readInbox(), readEvents()]))

  return {
    instance,
    hold(key, value = '') {
      const stored = `${instance}\n${value}`
      claims.set(key, stored)
      cmd.set(`${prefix}${key}`, stored, 'PX', LEASE_MS).catch(() => {})
    },
    renew(key, value = '') {
      const stored = `${instance}\n${value}`
      cmd.eval(CLAIM, 1, `${prefix}${key}`, stored, LEASE_MS).then(
        (won) => {
          // Another instance took it over: it is not made again here after a Redis restart either.
          if (won !== 1 && claims.get(key) === stored) claims.delete(key)
        },
        () => {},
      )
    },
    async claim(key) {
      const stored = `${instance}\n`
      const won = (await cmd.eval(CLAIM, 1, `${prefix}${key}`, stored, LEASE_MS)) === 1
      if (won) claims.set(key, stored)
      return won
    },
    release(key) {
      const stored = claims.get(key)
      claims.delete(key)
      if (stored !== undefined) cmd.eval(RELEASE, 1, `${prefix}${key}`, stored).catch(() => {})
    },
    join(key) {
      joined.add(key)
      join(key).catch(() => {})
    },
    leave(key) {
      if (joined.delete(key)) cmd.zrem(`${prefix}${key}`, instance).catch(() => {})
    },
    async members(key) {
      return (await cmd.eval(MEMBERS, 1, `${prefix}${key}`)) as string[]
    },
    async holder(key) {
      const stored = await cmd.get(`${prefix}${key}`)
      if (stored === null) return undefined
      const at = stored.indexOf('\n')
      return { instance: stored.slice(0, at), value: stored.slice(at + 1) }
    },
    async send(to, message) {
      const deadline = Date.now() + deliveryTimeoutMs
      const text = JSON.stringify(message)
      for (;;) {
        try {
          await add(inbox(to), STREAM_RETENTION_MS, 'm', text)
          return
        } catch (error) {
          // Redis unreachable: try again until the delivery deadline (a repeat is harmless at the receiver).
          if (closed || Date.now() > deadline) throw error
          await sleep(250)
        }
      }
    },
    onMessage(handler) {
      handlers.push(handler)
    },
    publish(conversationId, event) {
      const text = JSON.stringify(event)
      const written =
        Date.now() < toAllUntil
          ? add(eventsKey, 2 * WATCH_MS, 'i', instance, 'c', conversationId, 'e', text)
          : cmd.eval(
              PUBLISH,
              1,
              watchKey(conversationId),
              instance,
              `${prefix}events:`,
              maxLen,
              conversationId,
              text,
              2 * WATCH_MS,
              STREAM_RETENTION_MS,
            )
      written.catch((error: unknown) =>
        log(`[redis] chat event not fanned out: ${escapeForLog(String(error))}`),
      )
    },
    async watch(conversationId) {
      watching.add(conversationId)
      await starting
      await watch(conversationId)
    },
    unwatch,
    onEvent(handler) {
      eventHandlers.push(handler)
    },
    async broadcast(message) {
      // On the events stream: every instance reads it, in order with the chat events.
      await add(eventsKey, 2 * WATCH_MS, 'i', instance, 'b', JSON.stringify(message))
    },
    onBroadcast(handler) {
      broadcastHandlers.push(handler)
    },
    settling() {
      return Date.now() < toAllUntil
    },
    async ping() {
      await cmd.ping()
    },
    async close() {
      if (closed) return
      closed = true
      giveUp()
      clearInterval(renewWatches)
      for (const conversationId of [...watching]) unwatch(conversationId)
      for (const key of [...joined]) this.leave(key)
      await Promise.all([...claims.keys()].map((key) => this.release(key)))
      inboxReader.disconnect()
      eventReader.disconnect()
      await reading.catch(() => {})
      // What was handled last is acknowledged (and deleted) before the connections close.
      if (handled.length > 0) {
        await cmd.xack(inbox(instance), group, ...handled).catch(() => {})
        await cmd.xdel(inbox(instance), ...handled).catch(() => {})
      }
      if (read.length > 0) await cmd.xdel(mine, ...read).catch(() => {})
      await cmd.quit().catch(() => cmd.disconnect())
    },
  }
}
