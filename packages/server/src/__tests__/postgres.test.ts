import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgres, type TestPostgres } from '../../../../tests/support/servers.ts'
import { createToolmarkServer, type Provider } from '../index.ts'
import { openPostgresStore, type PostgresStoreOptions, StoreUnavailableError } from '../postgres.ts'
import { PG_MIGRATIONS } from '../store/pg-migrations.ts'
import type { Store } from '../store/store.ts'
import { storeRules } from './store-rules.ts'

// One real PostgreSQL 15 for the file; every store opened here gets a database of its own.
let server: TestPostgres
let admin: pg.Pool
const opened: Store[] = []
/** What the stores logged: the outage test's dropped idle connections. */
const logs: string[] = []
let databases = 0

beforeAll(async () => {
  server = await startPostgres()
  admin = new pg.Pool({ connectionString: server.url, max: 2 })
  admin.on('error', () => {}) // its idle connections end when the server stops in the outage test
}, 30_000)
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => {})))
  await admin?.end()
  await server?.destroy()
})

async function database(): Promise<string> {
  const name = `t${++databases}`
  await admin.query(`CREATE DATABASE ${name}`)
  return server.urlOf(name)
}

async function open(url: string, now?: () => number, extra: Partial<PostgresStoreOptions> = {}) {
  const store = await openPostgresStore({
    url,
    ...extra,
    ...(now ? { now } : {}),
    max: 4,
    connectionTimeoutMs: 1000,
    log: (line) => logs.push(line),
  })
  opened.push(store)
  return store
}

storeRules('PostgreSQL', async (now) => open(await database(), now))
// Behind a pooler that does not keep named statements (PgBouncer in transaction mode): the same rules hold.
storeRules('PostgreSQL without prepared statements', async (now) =>
  open(await database(), now, { prepare: false }),
)

/** The names of the statements prepared on the only connection of a one-connection store, after some work. */
async function preparedAfterWork(prepare: boolean): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: await database(), max: 1 })
  const store = await openPostgresStore({ pool, prepare })
  try {
    const user = await store.createUser()
    const conversation = await store.createConversation(user.id)
    // Twice: a named statement is prepared on the first run and reused on the second.
    for (let i = 0; i < 2; i++) expect(await store.getConversation(conversation.id)).toEqual(conversation)
    const { rows } = await pool.query<{ name: string }>(
      'SELECT name FROM pg_prepared_statements ORDER BY name',
    )
    return rows.map((r) => r.name)
  } finally {
    await store.close()
    await pool.end()
  }
}

describe('PostgreSQL store', () => {
  it('migrates once however many instances open the same database together, and keeps what they wrote', async () => {
    const url = await database()
    const [a, b, c] = await Promise.all([open(url), open(url), open(url)])
    const { rows } = await a.pool.query('SELECT version FROM toolmark_migrations')
    expect(rows).toEqual(PG_MIGRATIONS.map((_, i) => ({ version: i + 1 })))
    expect(rows).toHaveLength(7)
    const user = await a.createUser()
    const conversation = await b.createConversation(user.id)
    expect(await c.getConversation(conversation.id)).toEqual(conversation)
    // The demo cookie's key: the first instance's value is every instance's.
    const secrets = await Promise.all([a, b, c].map((s, i) => s.secret('session', () => `key-${i}`)))
    expect(new Set(secrets).size).toBe(1)
    const reopened = await open(url)
    expect(await reopened.secret('session', () => 'other')).toBe(secrets[0])
  })

  it('prepares its statements by name on each connection, unless prepare is false', async () => {
    expect(await preparedAfterWork(true)).toEqual([
      'toolmark_conversationGet',
      'toolmark_conversationInsert',
      'toolmark_userInsert',
    ])
    expect(await preparedAfterWork(false)).toEqual([])
  })

  it('keeps reading with statements prepared before a migration added a column', async () => {
    const pool = new pg.Pool({ connectionString: await database(), max: 1 })
    const store = await openPostgresStore({ pool })
    try {
      const user = await store.createUser()
      const conversation = await store.createConversation(user.id)
      const binding = {
        id: 'c1',
        userId: user.id,
        conversationId: conversation.id,
        clientId: 'page-1',
        kind: 'call' as const,
        tool: 'x',
        toolCallId: 'tc',
        deadlineAt: 2,
        createdAt: 1,
        state: 'pending' as const,
      }
      await store.insertCall(binding)
      expect(await store.getCall('c1')).toEqual(binding)
      // Another instance's newer version migrates the table while this connection's statements are prepared.
      await pool.query('ALTER TABLE toolmark_calls ADD COLUMN later TEXT')
      expect(await store.getCall('c1')).toEqual(binding)
      expect(await store.settleCall('c1', 'answered')).toBe(true)
    } finally {
      await store.close()
      await pool.end()
    }
  })

  it('keeps which instance waits for a call, for the instance that gets its answer', async () => {
    const store = await open(await database())
    const user = await store.createUser()
    const conversation = await store.createConversation(user.id)
    const binding = {
      id: 'c1',
      userId: user.id,
      conversationId: conversation.id,
      clientId: 'page-1',
      kind: 'call' as const,
      tool: 'x',
      toolCallId: 'tc',
      deadlineAt: 2,
      createdAt: 1,
      state: 'pending' as const,
    }
    await store.insertCall({ ...binding, instance: 'instance-b' })
    await store.insertCall({ ...binding, id: 'c2' })
    expect(await store.getCall('c1')).toEqual({ ...binding, instance: 'instance-b' })
    expect(await store.getCall('c2')).toEqual({ ...binding, id: 'c2' })
  })

  it('lets one of two instances settle the same call and confirmId, however many try at once', async () => {
    const url = await database()
    const [a, b] = await Promise.all([open(url), open(url)])
    const user = await a.createUser()
    const conversation = await a.createConversation(user.id)
    const ids = Array.from({ length: 20 }, (_, i) => `k${i}`)
    for (const confirmId of ids)
      await a.insertConfirm({
        confirmId,
        userId: user.id,
        conversationId: conversation.id,
        clientId: 'page-1',
        callId: `c-${confirmId}`,
        toolCallId: 'tc',
        tool: 'x',
        summary: 'Do x',
        createdAt: 1,
        state: 'pending',
      })
    for (const confirmId of ids) {
      const wins = await Promise.all([
        a.settleConfirm(confirmId, 'used'),
        b.settleConfirm(confirmId, 'used'),
        a.settleConfirm(confirmId, 'used'),
        b.settleConfirm(confirmId, 'expired'),
      ])
      expect(wins.filter(Boolean)).toHaveLength(1)
    }
  })

  it('rejects with StoreUnavailableError while the database is down, and keeps every committed row', async () => {
    const url = await database()
    const store = await open(url)
    const user = await store.createUser()
    const conversation = await store.createConversation(user.id)
    await store.addMessage({
      id: 'm1',
      conversationId: conversation.id,
      role: 'user',
      text: 'hi',
      at: 1,
      visible: true,
    })
    await server.stop()
    try {
      await expect(store.getConversation(conversation.id)).rejects.toBeInstanceOf(StoreUnavailableError)
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError)
      await expect(openPostgresStore({ url, connectionTimeoutMs: 500 })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      )
    } finally {
      await server.start()
    }
    await store.ping()
    expect(await store.getConversation(conversation.id)).toEqual(conversation)
    expect((await store.listMessages(conversation.id)).map((m) => m.text)).toEqual(['hi'])
  })
})

describe('a server on the PostgreSQL store', () => {
  const echo: Provider = {
    name: 'echo',
    async *stream() {
      yield { type: 'text', delta: 'Noted.' }
    },
  }
  const request = (path: string, init: RequestInit = {}) =>
    new Request(`http://127.0.0.1${path}`, { ...init, headers: { 'x-user': 'u1', ...init.headers } })

  it('answers 503 store_unavailable and not ready while the database is down, and loses nothing committed', async () => {
    const store = await open(await database())
    const lines: string[] = []
    const server = createToolmarkServer({
      store,
      provider: echo,
      authenticate: (r) => r.headers.get('x-user') ?? undefined,
      log: (line) => lines.push(line),
    })
    const created = await server.fetch(request('/api/conversations', { method: 'POST' }))
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const posted = await server.fetch(
      request(`/api/conversations/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'remember this' }),
      }),
    )
    expect(posted.status).toBe(202)
    await server.agent.idle(id)
    expect((await server.fetch(request('/toolmark/ready'))).status).toBe(200)

    await pgDown(async () => {
      const refused = await server.fetch(request('/api/conversations', { method: 'POST' }))
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('5')
      expect(await refused.json()).toEqual({
        error: { code: 'store_unavailable', message: 'The database is unavailable; try again shortly' },
      })
      expect((await server.fetch(request(`/api/conversations/${id}`))).status).toBe(503)
      const ready = await server.fetch(request('/toolmark/ready'))
      expect(ready.status).toBe(503)
      expect(((await ready.json()) as { error: { code: string } }).error.code).toBe('not_ready')
      expect((await server.fetch(request('/toolmark/health'))).status).toBe(200)
    })

    expect((await server.fetch(request('/toolmark/ready'))).status).toBe(200)
    const back = await server.fetch(request(`/api/conversations/${id}`))
    expect(((await back.json()) as { messages: { text: string }[] }).messages.map((m) => m.text)).toEqual([
      'remember this',
      'Noted.',
    ])
    expect(lines.join('\n')).not.toContain('remember this')
    await server.close()
  })
})

/** Runs `body` while the PostgreSQL server is stopped, and starts it again whatever happens. */
async function pgDown(body: () => Promise<void>): Promise<void> {
  await server.stop()
  try {
    await body()
  } finally {
    await server.start()
  }
}
