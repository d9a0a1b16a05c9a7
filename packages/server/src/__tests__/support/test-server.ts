import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// The offline demo agent drives these tests' conversations.
import { OfflineProvider } from '@toolmark/offline-agent'
import Database from 'better-sqlite3'
import { inject, onTestFinished } from 'vitest'
import type { Provider } from '../../agent/types.ts'
import type { Authenticate } from '../../http/app.ts'
import { serve } from '../../node.ts'
import type { Rejection } from '../../relay/relay.ts'
import { createToolmarkServer, type ToolmarkServerOptions } from '../../server.ts'
import type { Clock } from '../../shared/clock.ts'
import { openSqliteStore } from '../../sqlite.ts'
import { createMemoryStore } from '../../store/memory.ts'
import type { Store } from '../../store/store.ts'
import { Activity } from './activity.ts'
import { type AtRest, type RunningServer, startThree, waitingAgent } from './deployment.ts'
import { Browser } from './http-client.ts'
// Its `ProvidedContext` augmentation types `inject('sharedDeployment')`, for every project compiling this file.
import type {} from './shared-deployment.setup.ts'

/*
 * The test server harness: one instance, or three sharing PostgreSQL and Redis behind a balancer
 * (deployment.ts), started per test and closed when it finishes.
 */

/**
 * Which deployment the harness runs against: `single`, one instance with an in-memory SQLite store (the
 * `server` test project), or `three`, three instances sharing one PostgreSQL and one Redis behind a load
 * balancer without sticky sessions (the `server-shared` project, whose global setup starts both).
 */
export const DEPLOYMENT: 'single' | 'three' = inject('sharedDeployment') ? 'three' : 'single'

/** The server options a test may set. */
export type Config = Pick<
  ToolmarkServerOptions,
  | 'allowedOrigins'
  | 'callDeadlineMs'
  | 'maxSessions'
  | 'sessionSecret'
  | 'sessionTtlMs'
  | 'sseKeepAliveMs'
  | 'maxPageConnectionsPerUser'
  | 'maxChatStreamsPerUser'
  | 'maxQueuedTurnsPerUser'
  | 'maxConversationsPerUser'
  | 'confirmationTtlMs'
  | 'reaskConfirmations'
  | 'pageWaitMs'
>

/** A started server on 127.0.0.1:0 with an in-memory store, plus what it logged and rejected. */
export interface TestServer {
  server: RunningServer
  /** What every instance rejected, in the order they did. */
  rejections: Rejection[]
  /** What every instance logged, in order. */
  logs: string[]
  /** A new browser (its own cookie jar, so its own user) with a session (it started a conversation). */
  browser(): Promise<Browser>
  /**
   * Resolves once every instance has handled everything that reached it: the page messages it received, the
   * messages instances sent each other because of them (flush a raw socket with ping/pong first).
   */
  settled(): Promise<void>
  /** The messages instances handed each other (three instances), as `<kind> to <A|B|C>`, in order. */
  crossings: readonly string[]
}

/** What a test server is started with: a provider, a manual clock, configuration overrides. */
export interface TestServerOptions {
  provider?: Provider
  clock?: Clock
  config?: Partial<Config>
  /** The app's `authenticate` (else the demo session cookie). */
  authenticate?: Authenticate
  /**
   * One instance only: the store, by default SQLite in memory; `sqlite-file` a SQLite file (its rows read back
   * by `atRest`), `memory` the in-memory store (what it was handed recorded for `atRest`).
   */
  store?: 'sqlite-file' | 'memory'
}

/** Starts the harness's server: one instance, or three sharing PostgreSQL and Redis (see {@link DEPLOYMENT}). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const activity = new Activity()
  const logs: string[] = []
  const log = (line: string) => logs.push(line)
  const rejections: Rejection[] = []
  const now = options.clock ? options.clock.now : Date.now
  const provider = options.provider ?? new OfflineProvider()
  const start = async (store: Store, extra: Partial<ToolmarkServerOptions> = {}) => {
    const toolmark = createToolmarkServer({
      store: activity.store(store),
      provider,
      chatCompletions: new OfflineProvider(),
      log,
      ...options.config,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.authenticate ? { authenticate: options.authenticate } : {}),
      ...extra,
    })
    activity.relay(toolmark.relay)
    toolmark.relay.on('rejected', (r) => rejections.push(r))
    return { toolmark, node: await serve(toolmark, { port: 0, host: '127.0.0.1', log }) }
  }
  let server: RunningServer
  if (DEPLOYMENT === 'single') {
    const dir = options.store === 'sqlite-file' ? mkdtempSync(join(tmpdir(), 'toolmark-at-rest-')) : undefined
    const handed: unknown[] = []
    const store =
      options.store === 'memory'
        ? recording(createMemoryStore(now), handed)
        : openSqliteStore(dir ? join(dir, 'store.db') : ':memory:', now)
    const { toolmark, node } = await start(store)
    server = {
      async atRest() {
        if (options.store === 'memory') return { rows: { handed: structuredClone(handed) }, keys: [] }
        if (!dir) throw new Error("atRest() reads a SQLite file: start with store: 'sqlite-file'")
        const db = new Database(join(dir, 'store.db'), { readonly: true })
        try {
          const tables = db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .all() as Array<{ name: string }>
          const rows: AtRest['rows'] = {}
          for (const { name } of tables) rows[name] = db.prepare(`SELECT * FROM "${name}"`).all()
          return { rows, keys: [] }
        } finally {
          db.close()
        }
      },
      url: node.url,
      port: node.port,
      instances: [node.url],
      store: toolmark.store,
      relay: toolmark.relay,
      agent: waitingAgent([toolmark.agent], activity),
      provider,
      dropBridgeStreams: () => toolmark.dropBridgeStreams(),
      close: () =>
        node
          .close()
          .then(() => store.close())
          .finally(() => dir && rmSync(dir, { recursive: true, force: true })),
    }
  } else {
    server = await startThree(start, activity, provider, now, log)
  }
  return {
    server,
    rejections,
    logs,
    settled: () => activity.settled(),
    crossings: activity.crossings,
    async browser() {
      const b = new Browser(server.url)
      b.settled = () => activity.settled()
      b.gone = (clientId) => activity.gone(clientId)
      await b.createConversation() // sessions are created lazily, by the first conversation
      return b
    },
  }
}

/** `store` with every call's arguments and answer pushed onto `handed` (as JSON values). */
function recording(store: Store, handed: unknown[]): Store {
  const keep = (value: unknown) => handed.push(JSON.parse(JSON.stringify(value ?? null)))
  return new Proxy(store, {
    get: (target, key) => {
      const value: unknown = Reflect.get(target, key)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        keep(args)
        const out: unknown = (value as (...a: unknown[]) => unknown).apply(target, args)
        if (out instanceof Promise) void out.then(keep, () => {})
        else keep(out)
        return out
      }
    },
  })
}

/**
 * A file's `server()`: starts a test server with `defaults` (configuration merged with the
 * call's) and closes it when the test that started it finishes.
 */
export function testServers(
  defaults: TestServerOptions = {},
): (options?: TestServerOptions) => Promise<TestServer> {
  return async (options = {}) => {
    const t = await startTestServer({
      ...defaults,
      ...options,
      config: { ...defaults.config, ...options.config },
    })
    onTestFinished(() => t.server.close())
    return t
  }
}

/** A test server with no defaults, closed when the test that started it finishes. */
export const testServer = testServers()
