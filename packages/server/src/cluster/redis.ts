import { Redis } from 'ioredis'
import type { BroadcastMessage, Cluster, ClusterMessage } from '../relay/cluster.ts'
import { LEASE_MS } from '../relay/relay.ts'
import type { ChatEvent } from '../shared/contract.ts'
import { escapeForLog } from '../shared/log.ts'

/** How {@link createRedisCluster} connects. */
export interface RedisClusterOptions {
  /** A Redis URL (`redis://host:6379`), e.g. `process.env.REDIS_URL`. */
  url: string
  /** This instance's id. Default a random UUID (one per process). */
  instance?: string
  /** Prefix of every key. Default `toolmark:`. */
  prefix?: string
  /** Entries kept per stream (an inbox, the chat events), trimmed approximately. Default 10 000. */
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

/** Sets a claim only when the key is free or already this instance's (renewing it then). */
const CLAIM =
  "local v = redis.call('get', KEYS[1]) if v == false then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) " +
  "return 1 elseif v == ARGV[1] then redis.call('pexpire', KEYS[1], ARGV[2]) return 1 else return 0 end"

/** How long an inbox entry that keeps failing is retried before it is dropped (logged). */
const GIVE_UP_MS = 60_000
/** An entry read but not acknowledged this long is read again (its handler failed). */
const RETRY_IDLE_MS = 5_000

/**
 * The coordinator of several server instances on Redis (`ioredis`, an optional peer dependency; Node only).
 *
 * - Claims (which instance holds a page load's socket, or a page stream): `SET key "<instance>\n<value>" PX`,
 *   renewed by the relay's heartbeat, deleted on close only while still this instance's.
 * - Messages to one instance (a call for the page it holds, an answer for the call it waits for, a page's POST):
 *   a Redis Stream per instance, `<prefix>inbox:<instance>`, read with a consumer group (`XREADGROUP`) and
 *   acknowledged once handled (one `XACK` for the entries of a read, sent with the next read in the same write, not
 *   awaited); an entry whose handling failed is read again (`XAUTOCLAIM`). Unlike
 *   pub/sub, an entry written while the reader is disconnected (Redis restarting, a network blip) waits in
 *   the stream until it reads again. Every message is idempotent at its receiver (a call id is answered once),
 *   so a repeated delivery changes nothing.
 * - Chat events to every instance: one stream, `<prefix>events`, that each instance reads from the last id it
 *   saw (`XREAD`, no group: every instance needs every event), so a reconnecting reader misses nothing.
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
  cmd.on('ready', () => {
    lastProblem = ''
    // A Redis that restarted empty has lost every claim: this instance makes its own again at once.
    if (connectedBefore)
      for (const [key, stored] of claims) cmd.set(`${prefix}${key}`, stored, 'PX', LEASE_MS).catch(() => {})
    connectedBefore = true
  })

  const inbox = (id: string) => `${prefix}inbox:${id}`
  const eventsKey = `${prefix}events`
  const group = 'relay'
  const handlers: Array<(message: ClusterMessage) => Promise<void> | void> = []
  const eventHandlers: Array<(conversationId: string, event: ChatEvent) => void> = []
  const broadcastHandlers: Array<(message: BroadcastMessage) => void> = []
  let closed = false
  /**
   * Inbox entries handled but not acknowledged yet. Their `XACK` goes out with the reader's next command
   * (`XREADGROUP` or `XAUTOCLAIM`), in the same write on the same connection: no round trip of its own.
   */
  let handled: string[] = []
  /** Queues the `XACK` of the handled entries on the reader's connection, ahead of its next command. */
  const acknowledge = () => {
    if (handled.length === 0) return
    const ids = handled
    handled = []
    // Not awaited: an entry whose XACK is lost is read again (XAUTOCLAIM), and a repeat changes nothing.
    inboxReader.xack(inbox(instance), group, ...ids).catch(() => {})
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
      await inboxReader.xgroup('CREATE', inbox(instance), group, '0', 'MKSTREAM')
    } catch (error) {
      if (!/BUSYGROUP/.test(String(error))) throw error
    }
  }

  const readInbox = async () => {
    let lastClaim = Date.now()
    while (!closed) {
      try {
        // Auto-pipelined: the acknowledgements and this read leave in one write.
        acknowledge()
        const read = (await inboxReader.xreadgroup(
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
        )) as Array<[string, Array<[string, string[]]>]> | null
        for (const [, entries] of read ?? []) for (const [id, fields] of entries) await handle(id, fields)
        if (Date.now() - lastClaim >= RETRY_IDLE_MS) {
          lastClaim = Date.now()
          acknowledge()
          const [, entries] = (await inboxReader.xautoclaim(
            inbox(instance),
            group,
            instance,
            RETRY_IDLE_MS,
            '0-0',
            'COUNT',
            100,
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

  const readEvents = async () => {
    let last = '$'
    while (!closed) {
      try {
        if (last === '$') {
          const newest = (await eventReader.xrevrange(eventsKey, '+', '-', 'COUNT', 1)) as Array<
            [string, string[]]
          >
          last = newest[0]?.[0] ?? '0-0'
        }
        const read = (await eventReader.xread(
          'COUNT',
          500,
          'BLOCK',
          1000,
          'STREAMS',
          eventsKey,
          last,
        )) as Array<[string, Array<[string, string[]]>]> | null
        for (const [, entries] of read ?? [])
          for (const [id, fields] of entries) {
            last = id
            const get = (name: string) => fields[fields.indexOf(name) + 1]
            if (get('i') === instance) continue // delivered here already, when it was published
            try {
              const broadcast = get('b')
              if (fields.includes('b') && broadcast !== undefined) {
                const message = JSON.parse(broadcast) as BroadcastMessage
                for (const handler of broadcastHandlers) handler(message)
                continue
              }
              const event = JSON.parse(get('e') ?? 'null') as ChatEvent
              for (const handler of eventHandlers) handler(get('c') ?? '', event)
            } catch (error) {
              log(`[redis] chat event dropped: ${escapeForLog(String(error))}`)
            }
          }
      } catch {
        if (closed) return
        await sleep(250)
      }
    }
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
          await cmd.xadd(inbox(to), 'MAXLEN', '~', maxLen, '*', 'm', text)
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
      cmd
        .xadd(
          eventsKey,
          'MAXLEN',
          '~',
          maxLen,
          '*',
          'i',
          instance,
          'c',
          conversationId,
          'e',
          JSON.stringify(event),
        )
        .catch((error: unknown) => log(`[redis] chat event not fanned out: ${escapeForLog(String(error))}`))
    },
    onEvent(handler) {
      eventHandlers.push(handler)
    },
    async broadcast(message) {
      // On the events stream: every instance reads it, in order with the chat events.
      await cmd.xadd(eventsKey, 'MAXLEN', '~', maxLen, '*', 'i', instance, 'b', JSON.stringify(message))
    },
    onBroadcast(handler) {
      broadcastHandlers.push(handler)
    },
    async ping() {
      await cmd.ping()
    },
    async close() {
      if (closed) return
      closed = true
      await Promise.all([...claims.keys()].map((key) => this.release(key)))
      inboxReader.disconnect()
      eventReader.disconnect()
      await reading.catch(() => {})
      // What was handled last is acknowledged before the connections close (else it would stay pending).
      if (handled.length > 0) await cmd.xack(inbox(instance), group, ...handled).catch(() => {})
      await cmd.quit().catch(() => cmd.disconnect())
    },
  }
}
