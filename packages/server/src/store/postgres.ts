import pg from 'pg'
import type { AgentMessage } from '../agent/types.ts'
import { migratePostgres } from './pg-migrations.ts'
import {
  type CallBinding,
  type ConfirmBinding,
  type ManifestRecord,
  type Store,
  type StoredMessage,
  StoreUnavailableError,
} from './store.ts'

/** How {@link openPostgresStore} connects. */
export interface PostgresStoreOptions {
  /** A connection URL (`postgres://user:password@host:5432/db`), e.g. `process.env.DATABASE_URL`. */
  url?: string
  /** A pool of your own instead of `url` (it stays open when the store closes). */
  pool?: pg.Pool
  /** Most connections of the store's own pool. Default 10. */
  max?: number
  /** How long to wait for a connection before the request gets `503 store_unavailable`. Default 5000 ms. */
  connectionTimeoutMs?: number
  /** Time source of the records' timestamps (tests). Default `Date.now`. */
  now?: () => number
  /** Where pool errors are logged (a dropped idle connection, for one). Default `console.error`. */
  log?: (line: string) => void
}

/** A PostgreSQL {@link Store}, plus its pool. */
export interface PostgresStore extends Store {
  /** The pool the store runs its statements on. */
  readonly pool: pg.Pool
  /** Resolves when the database answers `SELECT 1`; rejects with {@link StoreUnavailableError} otherwise. */
  ping(): Promise<void>
}

/** Driver errors that mean the database cannot be reached or is going away (SQLSTATE class 08, 57P0x, 53300). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
])

function unavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code === '53300') return true
    if (code === '57P01' || code === '57P02' || code === '57P03') return true
  }
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable/i.test(
    error.message,
  )
}

/** Rethrows a connection failure as {@link StoreUnavailableError}; other errors (constraints) as they are. */
function mapError(error: unknown): never {
  if (unavailable(error)) throw new StoreUnavailableError('The database is unavailable', { cause: error })
  throw error
}

type Row = Record<string, unknown>
const num = (v: unknown): number => Number(v)
const str = (v: unknown): string => v as string

const toCall = (r: Row): CallBinding => ({
  id: str(r.id),
  userId: str(r.user_id),
  conversationId: str(r.conversation_id),
  clientId: str(r.client_id),
  kind: r.kind as CallBinding['kind'],
  tool: str(r.tool),
  toolCallId: str(r.tool_call_id),
  deadlineAt: num(r.deadline_at),
  createdAt: num(r.created_at),
  state: r.state as CallBinding['state'],
  ...(r.instance === null || r.instance === undefined ? {} : { instance: str(r.instance) }),
})

const toConfirm = (r: Row): ConfirmBinding => ({
  confirmId: str(r.confirm_id),
  userId: str(r.user_id),
  conversationId: str(r.conversation_id),
  clientId: str(r.client_id),
  callId: str(r.call_id),
  toolCallId: str(r.tool_call_id),
  tool: str(r.tool),
  summary: str(r.summary),
  createdAt: num(r.created_at),
  state: r.state as ConfirmBinding['state'],
  ...(r.expires_at === null ? {} : { expiresAt: num(r.expires_at) }),
})

const toMessage = (r: Row): StoredMessage => {
  const message: StoredMessage = {
    id: str(r.id),
    conversationId: str(r.conversation_id),
    role: r.role as StoredMessage['role'],
    text: str(r.text),
    at: num(r.at),
    visible: r.visible === true,
  }
  if (r.tool !== null) message.tool = str(r.tool)
  if (r.agent !== null) message.agent = r.agent as AgentMessage
  return message
}

const toManifest = (r: Row): ManifestRecord => ({
  clientId: str(r.client_id),
  userId: str(r.user_id),
  conversationId: str(r.conversation_id),
  rev: num(r.rev),
  tools: r.tools as ManifestRecord['tools'],
  updatedAt: num(r.updated_at),
})

const CONFIRM_COLUMNS =
  'confirm_id, user_id, conversation_id, client_id, call_id, tool_call_id, tool, summary, created_at, state, expires_at'

/**
 * Opens the PostgreSQL store (on `pg`, an optional peer dependency; Node only): migrations applied
 * (`pg-migrations.ts`, once per database however many instances start together), one pool. Every
 * single-use transition is one statement (`UPDATE … WHERE state = 'pending' RETURNING …`), so two instances
 * settling the same call or confirmId see one success between them; a write of several rows (pruning) is
 * one transaction. A database that cannot be reached makes every method reject with
 * {@link StoreUnavailableError} (the server answers 503); nothing committed is lost.
 */
/** A call binding's columns in the order of `toolmark_calls`' INSERTs ($1 … $11). */
const callValues = (b: CallBinding) => [
  b.id,
  b.userId,
  b.conversationId,
  b.clientId,
  b.kind,
  b.tool,
  b.toolCallId,
  b.deadlineAt,
  b.createdAt,
  b.state,
  b.instance ?? null,
]

export async function openPostgresStore(options: string | PostgresStoreOptions): Promise<PostgresStore> {
  const o: PostgresStoreOptions = typeof options === 'string' ? { url: options } : options
  const now = o.now ?? Date.now
  const log = o.log ?? ((line: string) => console.error(line))
  const own = o.pool === undefined
  if (own && !o.url) throw new TypeError('openPostgresStore needs a url or a pool')
  const pool =
    o.pool ??
    new pg.Pool({
      connectionString: o.url,
      max: o.max ?? 10,
      connectionTimeoutMillis: o.connectionTimeoutMs ?? 5000,
      idleTimeoutMillis: 30_000,
    })
  // An idle connection the server dropped is reported here, never as an uncaught error.
  const onPoolError = (error: Error) => log(`[postgres] idle connection failed: ${error.message}`)
  pool.on('error', onPoolError)

  const query = async (sql: string, params: unknown[] = []): Promise<pg.QueryResult<Row>> => {
    try {
      return await pool.query<Row>(sql, params)
    } catch (error) {
      return mapError(error)
    }
  }
  const first = async <T>(sql: string, params: unknown[], map: (r: Row) => T): Promise<T | undefined> => {
    const { rows } = await query(sql, params)
    return rows[0] === undefined ? undefined : map(rows[0])
  }
  const changed = async (sql: string, params: unknown[]): Promise<boolean> =>
    (await query(sql, params)).rowCount === 1

  try {
    const client = await pool.connect()
    try {
      await migratePostgres(client)
    } finally {
      client.release()
    }
  } catch (error) {
    pool.off('error', onPoolError)
    if (own) await pool.end().catch(() => {})
    return mapError(error)
  }

  return {
    pool,
    async ping() {
      await query('SELECT 1')
    },
    async secret(name, create) {
      const inserted = await first(
        'INSERT INTO toolmark_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value',
        [name, create()],
        (r) => str(r.value),
      )
      if (inserted !== undefined) return inserted
      // Another instance created it first: its value is the one every instance uses.
      const value = await first('SELECT value FROM toolmark_secrets WHERE name = $1', [name], (r) =>
        str(r.value),
      )
      if (value === undefined) throw new Error(`Secret ${name} vanished`)
      return value
    },
    async createUser() {
      const user = { id: crypto.randomUUID(), createdAt: now() }
      await query('INSERT INTO toolmark_users (id, created_at) VALUES ($1, $2)', [user.id, user.createdAt])
      return user
    },
    async ensureUser(id) {
      await query('INSERT INTO toolmark_users (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
        id,
        now(),
      ])
    },
    async createSession(userId) {
      const at = now()
      const session = { id: crypto.randomUUID(), userId, createdAt: at, lastSeenAt: at }
      await query(
        'INSERT INTO toolmark_sessions (id, user_id, created_at, last_seen_at) VALUES ($1, $2, $3, $3)',
        [session.id, userId, at],
      )
      return session
    },
    getSession: (id) =>
      first(
        'SELECT id, user_id, created_at, last_seen_at FROM toolmark_sessions WHERE id = $1',
        [id],
        (r) => ({
          id: str(r.id),
          userId: str(r.user_id),
          createdAt: num(r.created_at),
          lastSeenAt: num(r.last_seen_at),
        }),
      ),
    async touchSession(id, at) {
      await query('UPDATE toolmark_sessions SET last_seen_at = $1 WHERE id = $2', [at, id])
    },
    async pruneSessions(idleBefore, keep) {
      const c = await pool.connect().catch(mapError)
      try {
        await c.query('BEGIN')
        const idle = await c.query('DELETE FROM toolmark_sessions WHERE last_seen_at <= $1', [idleBefore])
        const surplus = await c.query(
          `DELETE FROM toolmark_sessions WHERE id IN (
             SELECT id FROM toolmark_sessions ORDER BY last_seen_at DESC, seq DESC OFFSET $1)`,
          [Math.max(0, keep)],
        )
        const removed = (idle.rowCount ?? 0) + (surplus.rowCount ?? 0)
        // A user is reachable only through a session: once the last one is gone, so is their data.
        if (removed > 0)
          for (const sql of [
            'DELETE FROM toolmark_messages WHERE conversation_id IN (SELECT id FROM toolmark_conversations WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions))',
            'DELETE FROM toolmark_calls WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
            'DELETE FROM toolmark_confirms WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
            'DELETE FROM toolmark_manifests WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
            'DELETE FROM toolmark_conversations WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
            'DELETE FROM toolmark_users WHERE id NOT IN (SELECT user_id FROM toolmark_sessions)',
          ])
            await c.query(sql)
        await c.query('COMMIT')
        return removed
      } catch (error) {
        await c.query('ROLLBACK').catch(() => {})
        return mapError(error)
      } finally {
        c.release()
      }
    },
    countSessions: async () => num((await query('SELECT COUNT(*) AS n FROM toolmark_sessions')).rows[0]!.n),
    async createConversation(userId) {
      const conversation = { id: crypto.randomUUID(), userId, createdAt: now() }
      await query('INSERT INTO toolmark_conversations (id, user_id, created_at) VALUES ($1, $2, $3)', [
        conversation.id,
        userId,
        conversation.createdAt,
      ])
      return conversation
    },
    getConversation: (id) =>
      first('SELECT id, user_id, created_at FROM toolmark_conversations WHERE id = $1', [id], (r) => ({
        id: str(r.id),
        userId: str(r.user_id),
        createdAt: num(r.created_at),
      })),
    async setActiveClient(conversationId, clientId) {
      await query('UPDATE toolmark_conversations SET active_client_id = $1 WHERE id = $2', [
        clientId,
        conversationId,
      ])
    },
    getActiveClient: async (conversationId) =>
      (await first(
        'SELECT active_client_id FROM toolmark_conversations WHERE id = $1',
        [conversationId],
        (r) => (r.active_client_id === null ? undefined : str(r.active_client_id)),
      )) ?? undefined,
    async addMessage(m) {
      await query(
        `INSERT INTO toolmark_messages (id, conversation_id, role, text, tool, at, visible, agent)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          m.id,
          m.conversationId,
          m.role,
          m.text,
          m.tool ?? null,
          m.at,
          m.visible,
          m.agent === undefined ? null : JSON.stringify(m.agent),
        ],
      )
    },
    listMessages: async (conversationId) =>
      (
        await query(
          'SELECT id, conversation_id, role, text, tool, at, visible, agent FROM toolmark_messages WHERE conversation_id = $1 ORDER BY seq',
          [conversationId],
        )
      ).rows.map(toMessage),
    async updateMessage(id, text, agent) {
      await query('UPDATE toolmark_messages SET text = $1, agent = $2 WHERE id = $3', [
        text,
        agent === undefined ? null : JSON.stringify(agent),
        id,
      ])
    },
    async insertCall(b) {
      await query(
        `INSERT INTO toolmark_calls (id, user_id, conversation_id, client_id, kind, tool, tool_call_id, deadline_at, created_at, state, instance)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        callValues(b),
      )
    },
    // One statement: the call is stored only while the conversation (of this user) is bound to its page load.
    bindCall: (b) =>
      changed(
        `INSERT INTO toolmark_calls (id, user_id, conversation_id, client_id, kind, tool, tool_call_id, deadline_at, created_at, state, instance)
           SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::bigint, $10::text, $11::text
           FROM toolmark_conversations WHERE id = $3 AND user_id = $2 AND active_client_id = $4`,
        callValues(b),
      ),
    // One statement: settled only while pending, bound to who answers, and in time.
    answerCall: (id, by, at) =>
      first(
        `UPDATE toolmark_calls SET state = 'answered'
           WHERE id = $1 AND state = 'pending' AND user_id = $2 AND conversation_id = $3 AND client_id = $4
             AND deadline_at >= $5
           RETURNING *`,
        [id, by.userId, by.conversationId, by.clientId, at],
        toCall,
      ),
    getCall: (id) => first('SELECT * FROM toolmark_calls WHERE id = $1', [id], toCall),
    settleCall: (id, state) =>
      changed("UPDATE toolmark_calls SET state = $1 WHERE id = $2 AND state = 'pending'", [state, id]),
    timeOutPendingCalls: async () =>
      (await query("UPDATE toolmark_calls SET state = 'timed_out' WHERE state = 'pending'")).rowCount ?? 0,
    insertConfirm: (b) =>
      changed(
        `INSERT INTO toolmark_confirms (${CONFIRM_COLUMNS})
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (confirm_id) DO NOTHING`,
        [
          b.confirmId,
          b.userId,
          b.conversationId,
          b.clientId,
          b.callId,
          b.toolCallId,
          b.tool,
          b.summary,
          b.createdAt,
          b.state,
          b.expiresAt ?? null,
        ],
      ),
    getConfirm: (confirmId) =>
      first(`SELECT ${CONFIRM_COLUMNS} FROM toolmark_confirms WHERE confirm_id = $1`, [confirmId], toConfirm),
    listConfirms: async (conversationId) =>
      (
        await query(
          `SELECT ${CONFIRM_COLUMNS} FROM toolmark_confirms WHERE conversation_id = $1 ORDER BY created_at, seq`,
          [conversationId],
        )
      ).rows.map(toConfirm),
    async updateConfirmSummary(confirmId, summary) {
      await query('UPDATE toolmark_confirms SET summary = $1 WHERE confirm_id = $2', [summary, confirmId])
    },
    // One statement: pending, and (for an approval) not expired, or nothing changes.
    settleConfirm: (confirmId, state, at = now()) =>
      changed(
        `UPDATE toolmark_confirms SET state = $1 WHERE confirm_id = $2 AND state = 'pending'
           AND ($1 = 'expired' OR expires_at IS NULL OR expires_at > $3)`,
        [state, confirmId, at],
      ),
    expireConfirms: async (conversationId, clientId) =>
      (
        await query(
          `UPDATE toolmark_confirms SET state = 'expired'
             WHERE conversation_id = $1 AND client_id = $2 AND state = 'pending' RETURNING ${CONFIRM_COLUMNS}`,
          [conversationId, clientId],
        )
      ).rows
        .map(toConfirm)
        .sort((a, b) => a.createdAt - b.createdAt),
    putManifest: (m) =>
      changed(
        `INSERT INTO toolmark_manifests (client_id, user_id, conversation_id, rev, tools, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (client_id) DO UPDATE SET rev = excluded.rev, tools = excluded.tools, updated_at = excluded.updated_at
           WHERE excluded.rev >= toolmark_manifests.rev`,
        [m.clientId, m.userId, m.conversationId, m.rev, JSON.stringify(m.tools), m.updatedAt],
      ),
    getManifest: (clientId) =>
      first('SELECT * FROM toolmark_manifests WHERE client_id = $1', [clientId], toManifest),
    // One round trip for the relay's most frequent read (the page a conversation is bound to).
    getActivePage: (conversationId) =>
      first(
        `SELECT m.* FROM toolmark_conversations c JOIN toolmark_manifests m ON m.client_id = c.active_client_id
           WHERE c.id = $1`,
        [conversationId],
        toManifest,
      ),
    async close() {
      pool.off('error', onPoolError)
      if (own) await pool.end()
    },
  }
}
