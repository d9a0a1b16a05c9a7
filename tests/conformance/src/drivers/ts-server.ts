import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createToolmarkServer, type ToolmarkServer } from '@toolmark/server'
import { serve } from '@toolmark/server/node'
import { OpenAiProvider } from '@toolmark/server/openai'
import { openPostgresStore } from '@toolmark/server/postgres'
import { createRedisCluster } from '@toolmark/server/redis'
import { openSqliteStore } from '@toolmark/server/sqlite'
import Database from 'better-sqlite3'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { Redis } from 'ioredis'
import pg from 'pg'
import WebSocket from 'ws'
import { startBalancer, type TestBalancer } from '../../../support/balancer.ts'
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../../../support/servers.ts'
import type { ChatProgress, ChatWatch, PageLink, Target, User } from '../driver.ts'

/*
 * @toolmark/server as a target: one instance on an SQLite file with pages on the WebSocket (`ts-ws`) or on
 * the HTTP transport (`ts-http`), or three instances sharing PostgreSQL and Redis behind a balancer without
 * sticky sessions (`ts-shared`: a conversation's page connections alternate between A and C, page POSTs and
 * chat messages go to B, so every call and answer crosses instances). The agent loop runs the OpenAI provider against the
 * scripted model. Rejections are read from each relay's `rejected` event, stored data from the database
 * (and Redis), plus the log lines.
 */

const DEADLINE_MS = 3000
const CONFIRM_TTL_MS = 20_000
/**
 * How long a page load takes to end before anything else happens: a reload's new page sends its manifest
 * well after the old one's connection closed, and the server learns of that close a moment after the page.
 */
const RELOAD_MS = 200

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Where a target's pages connect and how it is deployed. */
export interface TsOptions {
  name: string
  transport: 'websocket' | 'http'
  shared: boolean
}

/** A cookie-keeping client standing in for one browser. */
class Browser {
  cookie = ''
  constructor(readonly base: string) {}
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookie) headers.set('cookie', this.cookie)
    const response = await fetch(this.base + path, { ...init, headers })
    const set = response.headers.get('set-cookie')
    if (set) this.cookie = set.split(';')[0]!
    return response
  }
}

/** The @toolmark/server target. */
export class TsServerTarget implements Target {
  readonly name: string
  readonly deadlineMs = DEADLINE_MS
  readonly concurrency = 8
  readonly #o: TsOptions
  readonly #logs: string[] = []
  readonly #rejections = new Map<string, string[]>()
  #closers: Array<() => Promise<void>> = []
  #url = ''
  #dump: () => Promise<string> = async () => ''

  constructor(options: TsOptions) {
    this.name = options.name
    this.#o = options
  }

  async start(modelUrl: string): Promise<void> {
    const log = (line: string) => this.#logs.push(line)
    const make = (store: ToolmarkServer['store'], extra: object = {}) => {
      const toolmark = createToolmarkServer({
        store,
        provider: new OpenAiProvider({
          apiKey: 'conformance',
          baseUrl: modelUrl,
          model: 'scripted',
          maxRetries: 0,
        }),
        callDeadlineMs: DEADLINE_MS,
        confirmationTtlMs: CONFIRM_TTL_MS,
        log,
        ...extra,
      })
      toolmark.relay.on('rejected', (r) => {
        const list = this.#rejections.get(r.conversationId) ?? []
        list.push(r.reason)
        this.#rejections.set(r.conversationId, list)
      })
      return toolmark
    }
    if (!this.#o.shared) {
      const dir = mkdtempSync(join(tmpdir(), 'conformance-ts-'))
      const file = join(dir, 'toolmark.sqlite')
      const store = openSqliteStore(file)
      const node = await serve(make(store), { port: 0, host: '127.0.0.1', log })
      this.#url = node.url
      const reader = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 })
      this.#dump = async () => {
        const tables = reader.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
          name: string
        }>
        return tables
          .map(({ name }) => `${name}: ${JSON.stringify(reader.prepare(`SELECT * FROM "${name}"`).all())}`)
          .join('\n')
      }
      this.#closers.push(async () => {
        await node.close()
        store.close()
        reader.close()
        rmSync(dir, { recursive: true, force: true })
      })
      return
    }
    const [redis, postgres] = await Promise.all([startRedis(), startPostgres()])
    this.#closers.push(() => Promise.all([redis.stop(), postgres.destroy()]).then(() => {}))
    await this.#startShared(make, log, redis, postgres)
  }

  async #startShared(
    make: (store: ToolmarkServer['store'], extra?: object) => ToolmarkServer,
    log: (line: string) => void,
    redis: TestRedis,
    postgres: TestPostgres,
  ): Promise<void> {
    const stores = await Promise.all(
      [0, 1, 2].map(() => openPostgresStore({ url: postgres.url, max: 4, connectionTimeoutMs: 5000, log })),
    )
    const clusters = stores.map((_, i) =>
      createRedisCluster({ url: redis.url, prefix: 'toolmark:', instance: 'ABC'[i]!, log }),
    )
    const nodes = await Promise.all(
      stores.map((store, i) =>
        serve(make(store, { cluster: clusters[i] }), { port: 0, host: '127.0.0.1', log }),
      ),
    )
    const [a, b, c] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]]
    // Each conversation's page connections go to A, C, A, … in turn, so a scenario's second page load (a
    // reload, another tab) always lands on another instance than its first, whatever runs beside it.
    const pages = new Map<string, number>()
    let others = 0
    const balancer: TestBalancer = await startBalancer(({ method, path, upgrade }) => {
      const pathname = path.split('?')[0]!
      if (upgrade || (method === 'GET' && pathname === '/toolmark/events')) {
        const conversation = new URLSearchParams(path.split('?')[1] ?? '').get('conversation') ?? ''
        const n = pages.get(conversation) ?? 0
        pages.set(conversation, n + 1)
        return (n % 2 ? c : a).port
      }
      if (
        method === 'POST' &&
        (/^\/api\/conversations\/[^/]+\/messages$/.test(pathname) || pathname === '/toolmark/messages')
      )
        return b.port
      return nodes[others++ % 3]!.port
    })
    this.#url = balancer.url
    // A pool: scenarios read the database side by side.
    const db = new pg.Pool({ connectionString: postgres.url, max: 2 })
    const keys = new Redis(redis.url)
    this.#dump = async () => {
      const tables = await db.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
      )
      const out: string[] = []
      for (const { tablename } of tables.rows)
        out.push(`${tablename}: ${JSON.stringify((await db.query(`SELECT * FROM "${tablename}"`)).rows)}`)
      for (const key of await keys.keys('*')) out.push(`${key}: ${await redisValue(keys, key)}`)
      return out.join('\n')
    }
    this.#closers.unshift(async () => {
      await balancer.close()
      await Promise.all(nodes.map((n) => n.close()))
      await Promise.all(clusters.map((cluster) => cluster.close()))
      await Promise.all(stores.map((store) => store.close()))
      await db.end()
      keys.disconnect()
    })
  }

  async user(): Promise<User> {
    const browser = new Browser(this.#url)
    const created = await browser.fetch('/api/conversations', { method: 'POST' })
    const { id } = (await created.json()) as { id: string }
    return {
      async say(text) {
        const response = await browser.fetch(`/api/conversations/${id}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text }),
        })
        await response.body?.cancel()
        if (!response.ok) throw new Error(`the chat message was answered ${response.status}`)
      },
      openPage: () => (this.#o.transport === 'websocket' ? socketPage(browser, id) : httpPage(browser, id)),
      rejections: async () => [...(this.#rejections.get(id) ?? [])],
      async chat() {
        const response = await browser.fetch(`/api/conversations/${id}`)
        return ((await response.json()) as { messages: Array<{ role: string; text: string }> }).messages
      },
      stored: async () => `${await this.#dump()}\n${this.#logs.join('\n')}`,
      outliveConfirmations: () => new Promise((resolve) => setTimeout(resolve, CONFIRM_TTL_MS + 300)),
      watchChat: () => chatEvents(browser, id),
    }
  }

  async stop(): Promise<void> {
    for (const close of this.#closers) await close()
  }
}

/**
 * A page on the WebSocket transport. Like the bridge's transport it connects again before sending when the
 * server closed the socket (a server closes it on an oversized frame).
 */
async function socketPage(browser: Browser, conversation: string): Promise<PageLink> {
  const handlers: Array<(message: unknown) => void> = []
  const connect = async (): Promise<WebSocket> => {
    const socket = new WebSocket(
      `${browser.base.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`,
      { headers: { cookie: browser.cookie } },
    )
    socket.on('message', (data) => {
      let message: unknown
      try {
        message = JSON.parse(String(data))
      } catch {
        return // not a protocol message: a page drops it
      }
      for (const h of handlers) h(message)
    })
    socket.on('error', () => {}) // a refused or cut socket closes; the next send connects again
    socket.setMaxListeners(0) // a burst of sends waits for as many pongs at once
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    return socket
  }
  let ws = await connect()
  let closed = 0
  let leaving = false
  return {
    async send(text) {
      if (ws.readyState !== WebSocket.OPEN) {
        if (!leaving) closed++
        ws = await connect()
      }
      const socket = ws
      socket.send(text)
      // ping/pong is ordered after every frame before it: the server has the message (or closed the socket)
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('close', done)
          resolve()
        }
        socket.once('pong', done)
        socket.once('close', done)
        socket.ping()
      })
    },
    onMessage(handler) {
      handlers.push(handler)
    },
    closedByServer: () => closed + (ws.readyState === WebSocket.OPEN || leaving ? 0 : 1),
    async leave() {
      leaving = true
      if (ws.readyState === WebSocket.CLOSED) return
      const closed = new Promise((resolve) => ws.once('close', resolve))
      ws.close()
      await closed
      await sleep(RELOAD_MS)
    },
  }
}

/**
 * A page on the HTTP transport: the event stream in, one POST per message out. When the server ended the
 * stream (it does after an oversized POST), the next send opens a new one first, as the transport does.
 */
async function httpPage(browser: Browser, conversation: string): Promise<PageLink> {
  const handlers: Array<(message: unknown) => void> = []
  const open = async () => {
    const abort = new AbortController()
    const response = await browser.fetch(`/toolmark/events?conversation=${conversation}`, {
      headers: { accept: 'text/event-stream' },
      signal: abort.signal,
    })
    if (!response.ok || !response.body) throw new Error(`the event stream was refused: ${response.status}`)
    const reader = response.body
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(new EventSourceParserStream())
      .getReader()
    const ready = (await reader.read()).value
    if (ready?.event !== 'ready') throw new Error('the event stream did not start with ready')
    const state = {
      stream: (JSON.parse(ready.data) as { stream: string }).stream,
      abort,
      open: true,
      ended: Promise.resolve(),
    }
    state.ended = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) return
          if (value.event !== undefined) continue
          let message: unknown
          try {
            message = JSON.parse(value.data)
          } catch {
            continue // not a protocol message: a page drops it
          }
          for (const h of handlers) h(message)
        }
      } catch {
        // aborted by leave()
      } finally {
        state.open = false
      }
    })()
    return state
  }
  let link = await open()
  let closed = 0
  let leaving = false
  return {
    async send(text) {
      if (!link.open) {
        if (!leaving) closed++
        link = await open()
      }
      const posted = await browser.fetch('/toolmark/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolmark-stream': link.stream },
        body: text,
      })
      await posted.body?.cancel()
    },
    onMessage(handler) {
      handlers.push(handler)
    },
    closedByServer: () => closed + (link.open || leaving ? 0 : 1),
    async leave() {
      leaving = true
      link.abort.abort()
      await link.ended
      await sleep(RELOAD_MS)
    },
  }
}

/**
 * The chat's event stream (`GET /api/conversations/:id/events`, as the chat UI reads it), kept open until
 * closed. It resolves after the stream's first event (it says whether a turn is busy), when the server has
 * subscribed it; in shared mode any instance serves it, as every instance gets every event.
 */
async function chatEvents(browser: Browser, conversation: string): Promise<ChatWatch> {
  const abort = new AbortController()
  const response = await browser.fetch(`/api/conversations/${conversation}/events`, {
    headers: { accept: 'text/event-stream' },
    signal: abort.signal,
  })
  if (!response.ok || !response.body) throw new Error(`the chat stream was refused: ${response.status}`)
  const reader = response.body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader()
  await reader.read()
  const progress: ChatProgress[] = []
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        const event = JSON.parse(value.data) as { type?: string } & ChatProgress
        if (event.type === 'tool-progress') progress.push({ callId: event.callId, progress: event.progress })
      }
    } catch {
      // aborted by close()
    }
  })()
  return {
    progress: () => [...progress],
    async close() {
      abort.abort()
      await ended
    },
  }
}

/** A Redis key's value as text, whatever its type. */
async function redisValue(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key)
  if (type === 'string') return (await redis.get(key)) ?? ''
  if (type === 'hash') return JSON.stringify(await redis.hgetall(key))
  if (type === 'list') return JSON.stringify(await redis.lrange(key, 0, -1))
  if (type === 'set') return JSON.stringify(await redis.smembers(key))
  if (type === 'zset') return JSON.stringify(await redis.zrange(key, '0', '-1'))
  if (type === 'stream') return JSON.stringify(await redis.xrange(key, '-', '+'))
  return type
}
