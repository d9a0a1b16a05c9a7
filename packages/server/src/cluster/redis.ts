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
  const log = options.log ?? ((line: string) => console.warn(line))
  const common = { maxRetriesPerRequest: null, enableAutoPipelining: true, lazyConnect: false } as const
  // Commands answer within 2 s or reject (a caller never waits on a Redis that is down); readers block.
  const cmd = new Redis(options.url, { ...common, commandTimeout: 2000 })
  const inboxReader = new Redis(options.url, common)
  const eventReader = new Redis(options.url, common)
  const lifetime = new Lifetime()
  const context: Context = { instance, prefix, maxLen: options.maxLen ?? 10_000, log, cmd, lifetime }
  const claims = new Claims(context)
  const inbox = new Inbox(context, inboxReader, options.deliveryTimeoutMs ?? 30_000)
  const events = new ChatEvents(context, eventReader)
  reportProblems([cmd, inboxReader, eventReader], log)
  let connectedBefore = false
  cmd.on('ready', () => {
    // A Redis that restarted empty has lost every claim, set membership and watch: this instance makes its own
    // again at once.
    if (connectedBefore) {
      claims.restore()
      events.restore()
    }
    connectedBefore = true
  })
  // Renewed with the heartbeat: the watch of an instance that died lapses WATCH_MS after its last renewal, and
  // its inbox STREAM_RETENTION_MS after its last renewal or write.
  const renewWatches = setInterval(() => {
    events.renew()
    cmd.pexpire(inbox.key, STREAM_RETENTION_MS).catch(() => {})
  }, LEASE_MS / 3)
  ;(renewWatches as { unref?: () => void }).unref?.()
  const reading = inbox
    .ensureGroup()
    .catch(() => {}) // Redis not up yet: the read loop creates the group once it is
    .then(() => Promise.all([inbox.read(), events.read()]))

  return {
    instance,
    hold: (key, value) => claims.hold(key, value),
    renew: (key, value) => claims.renew(key, value),
    claim: (key) => claims.claim(key),
    release: (key) => claims.release(key),
    join: (key) => claims.join(key),
    leave: (key) => claims.leave(key),
    members: (key) => claims.members(key),
    holder: (key) => claims.holder(key),
    send: (to, message) => inbox.send(to, message),
    onMessage: (handler) => inbox.onMessage(handler),
    publish: (conversationId, event) => events.publish(conversationId, event),
    watch: (conversationId) => events.watch(conversationId),
    unwatch: (conversationId) => events.unwatch(conversationId),
    onEvent: (handler) => events.onEvent(handler),
    broadcast: (message) => events.broadcast(message),
    onBroadcast: (handler) => events.onBroadcast(handler),
    settling: () => events.settling(),
    async ping() {
      await cmd.ping()
    },
    async close() {
      if (lifetime.closed) return
      lifetime.close()
      clearInterval(renewWatches)
      events.unwatchAll()
      claims.releaseAll()
      inboxReader.disconnect()
      eventReader.disconnect()
      await reading.catch(() => {})
      // What was handled last is acknowledged (and deleted) before the connections close.
      await inbox.flush()
      await events.flush()
      await cmd.quit().catch(() => cmd.disconnect())
    },
  }
}

/** Logs the connections' problems: one line per kind of problem, not one per reconnect attempt. */
function reportProblems(connections: Redis[], log: (line: string) => void): void {
  let lastProblem = ''
  for (const connection of connections)
    connection.on('error', (error: Error) => {
      if (error.message === lastProblem) return
      lastProblem = error.message
      log(`[redis] ${escapeForLog(error.message)}`)
    })
  connections[0]?.on('ready', () => {
    lastProblem = ''
  })
}

/** Whether the coordinator is closed, and the readers' commands given up when it closes. */
class Lifetime {
  closed = false
  #giveUp: () => void = () => {}
  /** Rejects when the coordinator closes. */
  #closing = new Promise<never>((_, reject) => {
    this.#giveUp = () => reject(new Error('the Redis coordinator closed'))
  })

  constructor() {
    this.#closing.catch(() => {})
  }

  /**
   * A reader's command, given up when the coordinator closes: a connection disconnected while it is
   * reconnecting never settles the commands queued on it, and close() waits for the read loops to end.
   */
  whileOpen<T>(command: Promise<T>): Promise<T> {
    command.catch(() => {})
    return Promise.race([command, this.#closing])
  }

  close(): void {
    this.closed = true
    this.#giveUp()
  }
}

/** What the coordinator's parts share: who this instance is, where its keys live, the command connection. */
interface Context {
  instance: string
  prefix: string
  maxLen: number
  log: (line: string) => void
  /** The connection for commands (the readers have their own). */
  cmd: Redis
  lifetime: Lifetime
}

/**
 * Appends an entry to a stream with every bound at once ({@link ADD}): older entries trimmed, about `maxLen`
 * kept, the stream expiring `ttlMs` after this write.
 */
const add = (c: Context, key: string, ttlMs: number, ...fields: string[]) =>
  c.cmd.eval(ADD, 1, key, STREAM_RETENTION_MS, c.maxLen, ttlMs, ...fields)

/** Claims (a key held by one instance at a time) and set memberships. */
class Claims {
  /** This instance's live claims (key → stored value), made again when Redis comes back empty. */
  readonly #claims = new Map<string, string>()
  /** The sets this instance is a member of (see `join`), joined again when Redis comes back empty. */
  readonly #joined = new Set<string>()

  constructor(private readonly c: Context) {}

  hold(key: string, value = ''): void {
    const stored = `${this.c.instance}\n${value}`
    this.#claims.set(key, stored)
    this.c.cmd.set(`${this.c.prefix}${key}`, stored, 'PX', LEASE_MS).catch(() => {})
  }

  renew(key: string, value = ''): void {
    const stored = `${this.c.instance}\n${value}`
    this.c.cmd.eval(CLAIM, 1, `${this.c.prefix}${key}`, stored, LEASE_MS).then(
      (won) => {
        // Another instance took it over: it is not made again here after a Redis restart either.
        if (won !== 1 && this.#claims.get(key) === stored) this.#claims.delete(key)
      },
      () => {},
    )
  }

  async claim(key: string): Promise<boolean> {
    const stored = `${this.c.instance}\n`
    const won = (await this.c.cmd.eval(CLAIM, 1, `${this.c.prefix}${key}`, stored, LEASE_MS)) === 1
    if (won) this.#claims.set(key, stored)
    return won
  }

  release(key: string): void {
    const stored = this.#claims.get(key)
    this.#claims.delete(key)
    if (stored !== undefined) this.c.cmd.eval(RELEASE, 1, `${this.c.prefix}${key}`, stored).catch(() => {})
  }

  join(key: string): void {
    this.#joined.add(key)
    this.#join(key).catch(() => {})
  }

  leave(key: string): void {
    if (this.#joined.delete(key)) this.c.cmd.zrem(`${this.c.prefix}${key}`, this.c.instance).catch(() => {})
  }

  async members(key: string): Promise<string[]> {
    return (await this.c.cmd.eval(MEMBERS, 1, `${this.c.prefix}${key}`)) as string[]
  }

  async holder(key: string): Promise<{ instance: string; value: string } | undefined> {
    const stored = await this.c.cmd.get(`${this.c.prefix}${key}`)
    if (stored === null) return undefined
    const at = stored.indexOf('\n')
    return { instance: stored.slice(0, at), value: stored.slice(at + 1) }
  }

  /** Makes every claim and membership again, after Redis came back empty. */
  restore(): void {
    // Only where the key is free (or still this instance's): another instance may have taken it meanwhile.
    for (const [key, stored] of this.#claims)
      this.c.cmd.eval(CLAIM, 1, `${this.c.prefix}${key}`, stored, LEASE_MS).catch(() => {})
    for (const key of this.#joined) this.#join(key).catch(() => {})
  }

  /** Leaves every set and gives up every claim (on close). */
  releaseAll(): void {
    for (const key of [...this.#joined]) this.leave(key)
    for (const key of [...this.#claims.keys()]) this.release(key)
  }

  // A set member is stored like a watch: scored by when it lapses, the set kept alive twice that long.
  #join(key: string) {
    return this.c.cmd.eval(WATCH, 1, `${this.c.prefix}${key}`, this.c.instance, LEASE_MS)
  }
}

/** The consumer group of every inbox. */
const GROUP = 'relay'

/** Messages to one instance: a stream per instance, read with a consumer group and acknowledged once handled. */
class Inbox {
  /** This instance's inbox. */
  readonly key: string
  readonly #handlers: Array<(message: ClusterMessage) => Promise<void> | void> = []
  /**
   * Inbox entries handled but not acknowledged yet. Their `XACK` goes out with the reader's next command
   * (`XREADGROUP` or `XAUTOCLAIM`), in the same write on the same connection: no round trip of its own.
   */
  #handled: string[] = []

  constructor(
    private readonly c: Context,
    private readonly reader: Redis,
    private readonly deliveryTimeoutMs: number,
  ) {
    this.key = this.#inbox(c.instance)
  }

  async send(to: string, message: ClusterMessage): Promise<void> {
    const deadline = Date.now() + this.deliveryTimeoutMs
    const text = JSON.stringify(message)
    for (;;) {
      try {
        await add(this.c, this.#inbox(to), STREAM_RETENTION_MS, 'm', text)
        return
      } catch (error) {
        // Redis unreachable: try again until the delivery deadline (a repeat is harmless at the receiver).
        if (this.c.lifetime.closed || Date.now() > deadline) throw error
        await sleep(250)
      }
    }
  }

  onMessage(handler: (message: ClusterMessage) => Promise<void> | void): void {
    this.#handlers.push(handler)
  }

  async ensureGroup(): Promise<void> {
    const { lifetime } = this.c
    try {
      await lifetime.whileOpen(this.reader.xgroup('CREATE', this.key, GROUP, '0', 'MKSTREAM'))
    } catch (error) {
      if (!/BUSYGROUP/.test(String(error))) throw error
    }
    // The stream the group made has no expiry yet: it gets one at once (the heartbeat renews it).
    await lifetime.whileOpen(this.reader.pexpire(this.key, STREAM_RETENTION_MS))
  }

  /** The read loop, until the coordinator closes. */
  async read(): Promise<void> {
    let lastClaim = Date.now()
    while (!this.c.lifetime.closed) {
      try {
        await this.#readNew()
        if (Date.now() - lastClaim >= RETRY_IDLE_MS) {
          lastClaim = Date.now()
          await this.#readFailed()
        }
      } catch (error) {
        if (this.c.lifetime.closed) return
        // A restarted Redis has no group (nor stream) any more: create them again, from the start.
        if (/NOGROUP/.test(String(error))) await this.ensureGroup().catch(() => {})
        else await sleep(250)
      }
    }
  }

  /** Acknowledges (and deletes) what was handled last, on the command connection (on close). */
  async flush(): Promise<void> {
    if (this.#handled.length === 0) return
    await this.c.cmd.xack(this.key, GROUP, ...this.#handled).catch(() => {})
    await this.c.cmd.xdel(this.key, ...this.#handled).catch(() => {})
  }

  async #readNew(): Promise<void> {
    // Auto-pipelined: the acknowledgements and this read leave in one write.
    this.#acknowledge()
    const read = (await this.c.lifetime.whileOpen(
      this.reader.xreadgroup(
        'GROUP',
        GROUP,
        this.c.instance,
        'COUNT',
        100,
        'BLOCK',
        1000,
        'STREAMS',
        this.key,
        '>',
      ),
    )) as Array<[string, Array<[string, string[]]>]> | null
    for (const [, entries] of read ?? []) for (const [id, fields] of entries) await this.#handle(id, fields)
  }

  /** Reads again the entries whose handling failed ({@link RETRY_IDLE_MS} ago or more). */
  async #readFailed(): Promise<void> {
    this.#acknowledge()
    const [, entries] = (await this.c.lifetime.whileOpen(
      this.reader.xautoclaim(this.key, GROUP, this.c.instance, RETRY_IDLE_MS, '0-0', 'COUNT', 100),
    )) as [string, Array<[string, string[]] | null>]
    for (const entry of entries) if (entry) await this.#handle(entry[0], entry[1])
  }

  async #handle(id: string, fields: string[]): Promise<void> {
    const raw = fields[fields.indexOf('m') + 1]
    const at = Number(id.split('-')[0])
    try {
      if (raw === undefined) throw new Error('no message field')
      const message = JSON.parse(raw) as ClusterMessage
      for (const handler of this.#handlers) await handler(message)
    } catch (error) {
      if (Date.now() - at < GIVE_UP_MS) {
        this.c.log(`[redis] inbox entry failed, will retry: ${escapeForLog(String(error))}`)
        return // not acknowledged: XAUTOCLAIM hands it back after RETRY_IDLE_MS
      }
      this.c.log(
        `[redis] inbox entry dropped after ${GIVE_UP_MS} ms of failures: ${escapeForLog(String(error))}`,
      )
    }
    this.#handled.push(id)
  }

  /**
   * Queues the `XACK` and `XDEL` of the handled entries on the reader's connection, ahead of its next command:
   * an entry (a call's input on its way to the page among them) stays in Redis only until it is handled.
   */
  #acknowledge(): void {
    if (this.#handled.length === 0) return
    const ids = this.#handled
    this.#handled = []
    // Not awaited: an entry whose XACK is lost is read again (XAUTOCLAIM), and a repeat changes nothing; one
    // whose XDEL is lost is trimmed after STREAM_RETENTION_MS.
    this.reader.xack(this.key, GROUP, ...ids).catch(() => {})
    this.reader.xdel(this.key, ...ids).catch(() => {})
  }

  #inbox(id: string): string {
    return `${this.c.prefix}inbox:${id}`
  }
}

/**
 * Chat events to the instances watching their conversation, and broadcasts to every instance: two streams
 * read in one blocking `XREAD` from the last ids seen.
 */
class ChatEvents {
  /** The conversations whose chat events this instance watches, watched again on every heartbeat. */
  readonly #watching = new Set<string>()
  readonly #eventHandlers: Array<(conversationId: string, event: ClusterEvent) => void> = []
  readonly #broadcastHandlers: Array<(message: BroadcastMessage) => void> = []
  /** Until then (after a reconnect), chat events are published to every instance, not to the watchers only. */
  #toAllUntil = 0
  /** The stream every instance reads: broadcasts, and chat events of instances that publish to all. */
  readonly #all: string
  /** The stream of the chat events sent to this instance only (those of the conversations it watches). */
  readonly #mine: string
  /** Entries of this instance's own event stream read but not deleted yet (deleted with the next read). */
  readonly #read: string[] = []
  /** Where the event reader starts: known before any watch is made, so nothing sent after one is skipped. */
  readonly #starting: Promise<[string, string] | undefined>

  constructor(
    private readonly c: Context,
    private readonly reader: Redis,
  ) {
    this.#all = `${c.prefix}events`
    this.#mine = `${c.prefix}events:${c.instance}`
    this.#starting = this.#start()
  }

  publish(conversationId: string, event: ClusterEvent): void {
    const { c } = this
    const text = JSON.stringify(event)
    const written =
      Date.now() < this.#toAllUntil
        ? add(c, this.#all, 2 * WATCH_MS, 'i', c.instance, 'c', conversationId, 'e', text)
        : c.cmd.eval(
            PUBLISH,
            1,
            this.#watchKey(conversationId),
            c.instance,
            `${c.prefix}events:`,
            c.maxLen,
            conversationId,
            text,
            2 * WATCH_MS,
            STREAM_RETENTION_MS,
          )
    written.catch((error: unknown) =>
      c.log(`[redis] chat event not fanned out: ${escapeForLog(String(error))}`),
    )
  }

  async watch(conversationId: string): Promise<void> {
    this.#watching.add(conversationId)
    await this.#starting
    await this.#watch(conversationId)
  }

  unwatch(conversationId: string): void {
    if (!this.#watching.delete(conversationId)) return
    this.c.cmd.zrem(this.#watchKey(conversationId), this.c.instance).catch(() => {})
  }

  onEvent(handler: (conversationId: string, event: ClusterEvent) => void): void {
    this.#eventHandlers.push(handler)
  }

  async broadcast(message: BroadcastMessage): Promise<void> {
    // On the events stream: every instance reads it, in order with the chat events.
    await add(this.c, this.#all, 2 * WATCH_MS, 'i', this.c.instance, 'b', JSON.stringify(message))
  }

  onBroadcast(handler: (message: BroadcastMessage) => void): void {
    this.#broadcastHandlers.push(handler)
  }

  settling(): boolean {
    return Date.now() < this.#toAllUntil
  }

  /** Renews every watch (with the heartbeat). */
  renew(): void {
    for (const conversationId of this.#watching) this.#watch(conversationId).catch(() => {})
  }

  /** Makes every watch again, after Redis came back empty. */
  restore(): void {
    this.renew()
    // A Redis that restarted empty has lost the other instances' watches too, until they reconnect and make
    // them again: meanwhile this instance's chat events go to every instance, as broadcasts do.
    this.#toAllUntil = Date.now() + LEASE_MS
  }

  unwatchAll(): void {
    for (const conversationId of [...this.#watching]) this.unwatch(conversationId)
  }

  /** The read loop, until the coordinator closes. Each stream is read from the last id seen. */
  async read(): Promise<void> {
    const { lifetime } = this.c
    const last = await this.#starting
    if (!last) return
    while (!lifetime.closed) {
      try {
        // Only this instance reads its own stream: what it read is deleted, in the same write as the next read.
        if (this.#read.length > 0) this.reader.xdel(this.#mine, ...this.#read.splice(0)).catch(() => {})
        const got = (await lifetime.whileOpen(
          this.reader.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', this.#all, this.#mine, ...last),
        )) as Array<[string, Array<[string, string[]]>]> | null
        for (const [key, entries] of got ?? [])
          for (const [id, fields] of entries) {
            if (key === this.#all) last[0] = id
            else {
              last[1] = id
              this.#read.push(id)
            }
            this.#deliver(fields)
          }
      } catch {
        if (lifetime.closed) return
        await sleep(250)
      }
    }
  }

  /** Deletes what was read last from this instance's own stream (on close). */
  async flush(): Promise<void> {
    if (this.#read.length > 0) await this.c.cmd.xdel(this.#mine, ...this.#read).catch(() => {})
  }

  async #start(): Promise<[string, string] | undefined> {
    while (!this.c.lifetime.closed) {
      try {
        return [await this.#newest(this.#all), await this.#newest(this.#mine)]
      } catch {
        await sleep(250) // Redis not up yet
      }
    }
    return undefined
  }

  /** The id of a stream's newest entry ('0-0' when it is empty): where a reader starting now begins. */
  async #newest(key: string): Promise<string> {
    const entries = (await this.c.lifetime.whileOpen(
      this.reader.xrevrange(key, '+', '-', 'COUNT', 1),
    )) as Array<[string, string[]]>
    return entries[0]?.[0] ?? '0-0'
  }

  /** Hands one entry of an event stream to the handlers (a broadcast, or a chat event). */
  #deliver(fields: string[]): void {
    const get = (name: string) => {
      const at = fields.indexOf(name)
      return at < 0 ? undefined : fields[at + 1]
    }
    if (get('i') === this.c.instance) return // delivered here already, when it was published
    try {
      const broadcast = get('b')
      if (broadcast !== undefined) {
        const message = JSON.parse(broadcast) as BroadcastMessage
        for (const handler of this.#broadcastHandlers) handler(message)
        return
      }
      const event = JSON.parse(get('e') ?? 'null') as ClusterEvent
      for (const handler of this.#eventHandlers) handler(get('c') ?? '', event)
    } catch (error) {
      this.c.log(`[redis] chat event dropped: ${escapeForLog(String(error))}`)
    }
  }

  #watchKey(conversationId: string): string {
    return `${this.c.prefix}watch:${conversationId}`
  }

  #watch(conversationId: string) {
    return this.c.cmd.eval(WATCH, 1, this.#watchKey(conversationId), this.c.instance, WATCH_MS)
  }
}
