import pg from 'pg'
import type { AgentMessage } from '../agent/types.ts'
import type { ToolPart } from '../shared/contract.ts'
import { type GrantRow, grantValues, toGrant } from './grants-sql.ts'
import { migratePostgres } from './pg-migrations.ts'
import {
  type CallBinding,
  type CallStore,
  type ConfirmBinding,
  type ConfirmStore,
  type ConversationStore,
  type DecisionStore,
  type GrantStore,
  type ManifestRecord,
  type PageContextRecord,
  type PageStore,
  type PendingDecision,
  type Store,
  type StoredMessage,
  StoreUnavailableError,
  type UserStore,
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
  /**
   * Sends each of the store's fixed statements as a named prepared statement, so the server parses and plans
   * it once per connection instead of on every call. Default true. Set it to false behind a pooler that does
   * not keep a connection's named statements between transactions (PgBouncer in transaction or statement mode,
   * and similar): there, a statement prepared on one server connection is unknown on the next.
   */
  prepare?: boolean
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

const toDecision = (r: Row): PendingDecision => ({
  userId: str(r.user_id),
  conversationId: str(r.conversation_id),
  toolCallId: str(r.tool_call_id),
  tool: str(r.tool),
  ...(r.input === null ? {} : { input: r.input as Record<string, unknown> }),
  entry: str(r.entry),
  createdAt: num(r.created_at),
  expiresAt: num(r.expires_at),
  state: r.state as PendingDecision['state'],
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
  if (r.part !== null && r.part !== undefined) message.part = r.part as ToolPart
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

const toPageContext = (r: Row): PageContextRecord => ({
  clientId: str(r.client_id),
  userId: str(r.user_id),
  conversationId: str(r.conversation_id),
  rev: num(r.rev),
  entries: r.entries as PageContextRecord['entries'],
  updatedAt: num(r.updated_at),
})

const CALL_COLUMNS =
  'id, user_id, conversation_id, client_id, kind, tool, tool_call_id, deadline_at, created_at, state, instance'
const DECISION_COLUMNS =
  'conversation_id, tool_call_id, user_id, tool, input, entry, created_at, expires_at, state'
const CONFIRM_COLUMNS =
  'confirm_id, user_id, conversation_id, client_id, call_id, tool_call_id, tool, summary, created_at, state, expires_at'
const MANIFEST_COLUMNS = 'client_id, user_id, conversation_id, rev, tools, updated_at'

/**
 * The store's fixed statements, by the name each is prepared under. Every one lists the columns it reads (never
 * `*`): a prepared statement's result columns are fixed when it is planned, so a later migration adding a column
 * must not change them.
 */
const GRANT_COLUMNS = 'id, user_id, tool, title, fingerprint, caller, conversation_id, created_at, expires_at'

const STATEMENTS = {
  ping: 'SELECT 1',
  secretInsert:
    'INSERT INTO toolmark_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value',
  secretGet: 'SELECT value FROM toolmark_secrets WHERE name = $1',
  userInsert: 'INSERT INTO toolmark_users (id, created_at) VALUES ($1, $2)',
  userEnsure: 'INSERT INTO toolmark_users (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
  sessionInsert:
    'INSERT INTO toolmark_sessions (id, user_id, created_at, last_seen_at) VALUES ($1, $2, $3, $3)',
  sessionGet: 'SELECT id, user_id, created_at, last_seen_at FROM toolmark_sessions WHERE id = $1',
  sessionTouch: 'UPDATE toolmark_sessions SET last_seen_at = $1 WHERE id = $2',
  sessionCount: 'SELECT COUNT(*) AS n FROM toolmark_sessions',
  conversationCount: 'SELECT COUNT(*) AS n FROM toolmark_conversations WHERE user_id = $1',
  conversationInsert: 'INSERT INTO toolmark_conversations (id, user_id, created_at) VALUES ($1, $2, $3)',
  conversationGet: 'SELECT id, user_id, created_at FROM toolmark_conversations WHERE id = $1',
  activeClientSet: 'UPDATE toolmark_conversations SET active_client_id = $1 WHERE id = $2',
  activeClientGet: 'SELECT active_client_id FROM toolmark_conversations WHERE id = $1',
  messageInsert: `INSERT INTO toolmark_messages (id, conversation_id, role, text, tool, at, visible, agent, part)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  messageList:
    'SELECT id, conversation_id, role, text, tool, at, visible, agent, part FROM toolmark_messages WHERE conversation_id = $1 ORDER BY seq',
  messageUpdate:
    'UPDATE toolmark_messages SET text = $1, agent = $2, part = COALESCE($3, part) WHERE id = $4',
  callInsert: `INSERT INTO toolmark_calls (${CALL_COLUMNS})
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
  // The call is stored only while the conversation (of this user) is bound to its page load.
  callBind: `INSERT INTO toolmark_calls (${CALL_COLUMNS})
    SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::bigint, $10::text, $11::text
    FROM toolmark_conversations WHERE id = $3 AND user_id = $2 AND active_client_id = $4`,
  // Settled only while pending, bound to who answers, and in time.
  callAnswer: `UPDATE toolmark_calls SET state = 'answered'
    WHERE id = $1 AND state = 'pending' AND user_id = $2 AND conversation_id = $3 AND client_id = $4
      AND deadline_at >= $5
    RETURNING ${CALL_COLUMNS}`,
  callGet: `SELECT ${CALL_COLUMNS} FROM toolmark_calls WHERE id = $1`,
  callSettle: "UPDATE toolmark_calls SET state = $1 WHERE id = $2 AND state = 'pending'",
  callsTimeOut: "UPDATE toolmark_calls SET state = 'timed_out' WHERE state = 'pending'",
  confirmInsert: `INSERT INTO toolmark_confirms (${CONFIRM_COLUMNS})
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (confirm_id) DO NOTHING`,
  confirmGet: `SELECT ${CONFIRM_COLUMNS} FROM toolmark_confirms WHERE confirm_id = $1`,
  confirmList: `SELECT ${CONFIRM_COLUMNS} FROM toolmark_confirms WHERE conversation_id = $1 ORDER BY created_at, seq`,
  confirmSummary: 'UPDATE toolmark_confirms SET summary = $1 WHERE confirm_id = $2',
  // Pending, and (for an approval) not expired, or nothing changes.
  confirmSettle: `UPDATE toolmark_confirms SET state = $1 WHERE confirm_id = $2 AND state = 'pending'
    AND ($1 = 'expired' OR expires_at IS NULL OR expires_at > $3)`,
  confirmsExpire: `UPDATE toolmark_confirms SET state = 'expired'
    WHERE conversation_id = $1 AND client_id = $2 AND state = 'pending' RETURNING ${CONFIRM_COLUMNS}`,
  decisionOpen: `INSERT INTO toolmark_decisions (${DECISION_COLUMNS})
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (conversation_id, tool_call_id) DO NOTHING`,
  // From pending, or from nothing (a closed record is stored): one statement, so one of two closers wins.
  decisionClose: `INSERT INTO toolmark_decisions (${DECISION_COLUMNS})
    VALUES ($1, $2, $3, $4, NULL, '', $5, $5, $6)
    ON CONFLICT (conversation_id, tool_call_id) DO UPDATE SET state = excluded.state
    WHERE toolmark_decisions.state = 'pending'`,
  decisionsPending: `SELECT ${DECISION_COLUMNS} FROM toolmark_decisions
    WHERE conversation_id = $1 AND state = 'pending' ORDER BY created_at`,
  manifestPut: `INSERT INTO toolmark_manifests (${MANIFEST_COLUMNS})
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (client_id) DO UPDATE SET rev = excluded.rev, tools = excluded.tools, updated_at = excluded.updated_at
    WHERE excluded.rev >= toolmark_manifests.rev`,
  manifestGet: `SELECT ${MANIFEST_COLUMNS} FROM toolmark_manifests WHERE client_id = $1`,
  pageContextPut: `INSERT INTO toolmark_page_contexts (client_id, user_id, conversation_id, rev, entries, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (client_id) DO UPDATE SET rev = excluded.rev, entries = excluded.entries, updated_at = excluded.updated_at
    WHERE excluded.rev >= toolmark_page_contexts.rev`,
  pageContextGet: `SELECT client_id, user_id, conversation_id, rev, entries, updated_at
    FROM toolmark_page_contexts WHERE client_id = $1`,
  // One round trip for the relay's most frequent read (the page a conversation is bound to).
  activePageGet: `SELECT m.client_id, m.user_id, m.conversation_id, m.rev, m.tools, m.updated_at
    FROM toolmark_conversations c JOIN toolmark_manifests m ON m.client_id = c.active_client_id WHERE c.id = $1`,
  grantList: `SELECT ${GRANT_COLUMNS} FROM toolmark_grants
    WHERE user_id = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY created_at DESC, seq DESC`,
  // Replaces the user's grant for the same tool, caller and conversation in one statement.
  grantPut: `WITH dropped AS (DELETE FROM toolmark_grants
      WHERE user_id = $2 AND tool = $3 AND caller = $6 AND conversation_id IS NOT DISTINCT FROM $7)
    INSERT INTO toolmark_grants (${GRANT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  grantRevoke: 'DELETE FROM toolmark_grants WHERE id = $1 AND user_id = $2',
} as const

/** The name of one of the store's fixed statements. */
type Statement = keyof typeof STATEMENTS

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

/**
 * Opens the PostgreSQL store (on `pg`, an optional peer dependency; Node only): migrations applied
 * (`pg-migrations.ts`, once per database however many instances start together), one pool. Every
 * single-use transition is one statement (`UPDATE … WHERE state = 'pending' RETURNING …`), so two instances
 * settling the same call or confirmId see one success between them; a write of several rows (pruning) is
 * one transaction. A database that cannot be reached makes every method reject with
 * {@link StoreUnavailableError} (the server answers 503); nothing committed is lost.
 */
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

  const db = database(pool, now, o.prepare ?? true)
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
      await db.query('ping')
    },
    ...userMethods(db),
    ...conversationMethods(db),
    ...callMethods(db),
    ...confirmMethods(db),
    ...decisionMethods(db),
    ...pageMethods(db),
    async close() {
      pool.off('error', onPoolError)
      if (own) await pool.end()
    },
  }
}

/** The pool with the helpers every aggregate's methods run their fixed statements through. */
interface Database {
  pool: pg.Pool
  now: () => number
  /** Runs one of the fixed statements: named (prepared once per connection) unless `prepare` is off. */
  query(statement: Statement, values?: unknown[]): Promise<pg.QueryResult<Row>>
  /** The first row mapped, or `undefined` when there is none. */
  first<T>(statement: Statement, values: unknown[], map: (r: Row) => T): Promise<T | undefined>
  /** Whether the statement changed exactly one row. */
  changed(statement: Statement, values: unknown[]): Promise<boolean>
}

function database(pool: pg.Pool, now: () => number, prepare: boolean): Database {
  const query = async (statement: Statement, values: unknown[] = []): Promise<pg.QueryResult<Row>> => {
    const text = STATEMENTS[statement]
    try {
      return await pool.query<Row>(
        prepare ? { name: `toolmark_${statement}`, text, values } : { text, values },
      )
    } catch (error) {
      return mapError(error)
    }
  }
  const first = async <T>(
    statement: Statement,
    values: unknown[],
    map: (r: Row) => T,
  ): Promise<T | undefined> => {
    const { rows } = await query(statement, values)
    return rows[0] === undefined ? undefined : map(rows[0])
  }
  const changed = async (statement: Statement, values: unknown[]): Promise<boolean> =>
    (await query(statement, values)).rowCount === 1

  return { pool, now, query, first, changed }
}

/** Secrets, users and sessions. */
function userMethods(db: Database): UserStore {
  const { now, query, first } = db
  return {
    async secret(name, create) {
      const inserted = await first('secretInsert', [name, create()], (r) => str(r.value))
      if (inserted !== undefined) return inserted
      // Another instance created it first: its value is the one every instance uses.
      const value = await first('secretGet', [name], (r) => str(r.value))
      if (value === undefined) throw new Error(`Secret ${name} vanished`)
      return value
    },
    async createUser() {
      const user = { id: crypto.randomUUID(), createdAt: now() }
      await query('userInsert', [user.id, user.createdAt])
      return user
    },
    async ensureUser(id) {
      await query('userEnsure', [id, now()])
    },
    async createSession(userId) {
      const at = now()
      const session = { id: crypto.randomUUID(), userId, createdAt: at, lastSeenAt: at }
      await query('sessionInsert', [session.id, userId, at])
      return session
    },
    getSession: (id) =>
      first('sessionGet', [id], (r) => ({
        id: str(r.id),
        userId: str(r.user_id),
        createdAt: num(r.created_at),
        lastSeenAt: num(r.last_seen_at),
      })),
    async touchSession(id, at) {
      await query('sessionTouch', [at, id])
    },
    pruneSessions: (idleBefore, keep) => pruneSessions(db.pool, idleBefore, keep),
    countSessions: async () => num((await query('sessionCount')).rows[0]!.n),
  }
}

/** Removes idle and surplus sessions, then the users left without one and all of their data, in one transaction. */
async function pruneSessions(pool: pg.Pool, idleBefore: number, keep: number): Promise<number> {
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
        'DELETE FROM toolmark_decisions WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
        'DELETE FROM toolmark_manifests WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
        'DELETE FROM toolmark_page_contexts WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
        'DELETE FROM toolmark_grants WHERE user_id NOT IN (SELECT user_id FROM toolmark_sessions)',
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
}

/** Conversations and their messages. */
function conversationMethods(db: Database): ConversationStore {
  const { now, query, first } = db
  return {
    countConversations: async (userId) => num((await query('conversationCount', [userId])).rows[0]!.n),
    async createConversation(userId) {
      const conversation = { id: crypto.randomUUID(), userId, createdAt: now() }
      await query('conversationInsert', [conversation.id, userId, conversation.createdAt])
      return conversation
    },
    getConversation: (id) =>
      first('conversationGet', [id], (r) => ({
        id: str(r.id),
        userId: str(r.user_id),
        createdAt: num(r.created_at),
      })),
    async setActiveClient(conversationId, clientId) {
      await query('activeClientSet', [clientId, conversationId])
    },
    getActiveClient: async (conversationId) =>
      (await first('activeClientGet', [conversationId], (r) =>
        r.active_client_id === null ? undefined : str(r.active_client_id),
      )) ?? undefined,
    async addMessage(m) {
      await query('messageInsert', [
        m.id,
        m.conversationId,
        m.role,
        m.text,
        m.tool ?? null,
        m.at,
        m.visible,
        m.agent === undefined ? null : JSON.stringify(m.agent),
        m.part === undefined ? null : JSON.stringify(m.part),
      ])
    },
    listMessages: async (conversationId) =>
      (await query('messageList', [conversationId])).rows.map(toMessage),
    async updateMessage(id, text, agent, part) {
      await query('messageUpdate', [
        text,
        agent === undefined ? null : JSON.stringify(agent),
        part === undefined ? null : JSON.stringify(part),
        id,
      ])
    },
  }
}

/** Call bindings: which page load may answer which call; every transition is one statement. */
function callMethods(db: Database): CallStore {
  const { query, first, changed } = db
  return {
    async insertCall(b) {
      await query('callInsert', callValues(b))
    },
    // One statement: the call is stored only while the conversation (of this user) is bound to its page load.
    bindCall: (b) => changed('callBind', callValues(b)),
    // One statement: settled only while pending, bound to who answers, and in time.
    answerCall: (id, by, at) =>
      first('callAnswer', [id, by.userId, by.conversationId, by.clientId, at], toCall),
    getCall: (id) => first('callGet', [id], toCall),
    settleCall: (id, state) => changed('callSettle', [state, id]),
    timeOutPendingCalls: async () => (await query('callsTimeOut')).rowCount ?? 0,
  }
}

/** Confirmation bindings, each settled once. */
function confirmMethods(db: Database): ConfirmStore {
  const { now, query, first, changed } = db
  return {
    insertConfirm: (b) =>
      changed('confirmInsert', [
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
      ]),
    getConfirm: (confirmId) => first('confirmGet', [confirmId], toConfirm),
    listConfirms: async (conversationId) =>
      (await query('confirmList', [conversationId])).rows.map(toConfirm),
    async updateConfirmSummary(confirmId, summary) {
      await query('confirmSummary', [summary, confirmId])
    },
    // One statement: pending, and (for an approval) not expired, or nothing changes.
    settleConfirm: (confirmId, state, at = now()) => changed('confirmSettle', [state, confirmId, at]),
    expireConfirms: async (conversationId, clientId) =>
      (await query('confirmsExpire', [conversationId, clientId])).rows
        .map(toConfirm)
        .sort((a, b) => a.createdAt - b.createdAt),
  }
}

/** The agent calls' decisions: opened once, closed once. */
function decisionMethods(db: Database): DecisionStore {
  const { query, changed } = db
  return {
    openDecision: (d) =>
      changed('decisionOpen', [
        d.conversationId,
        d.toolCallId,
        d.userId,
        d.tool,
        d.input === undefined ? null : JSON.stringify(d.input),
        d.entry,
        d.createdAt,
        d.expiresAt,
        d.state,
      ]),
    closeDecision: (key, state, at) =>
      changed('decisionClose', [key.conversationId, key.toolCallId, key.userId, key.tool, at, state]),
    pendingDecisions: async (conversationId) =>
      (await query('decisionsPending', [conversationId])).rows.map(toDecision),
  }
}

/** Manifests, page contexts and grants. */
function pageMethods(db: Database): PageStore & GrantStore {
  const { query, first, changed } = db
  return {
    putManifest: (m) =>
      changed('manifestPut', [
        m.clientId,
        m.userId,
        m.conversationId,
        m.rev,
        JSON.stringify(m.tools),
        m.updatedAt,
      ]),
    getManifest: (clientId) => first('manifestGet', [clientId], toManifest),
    getActivePage: (conversationId) => first('activePageGet', [conversationId], toManifest),
    putPageContext: (c) =>
      changed('pageContextPut', [
        c.clientId,
        c.userId,
        c.conversationId,
        c.rev,
        JSON.stringify(c.entries),
        c.updatedAt,
      ]),
    getPageContext: (clientId) => first('pageContextGet', [clientId], toPageContext),
    listGrants: async (userId, at) =>
      (await query('grantList', [userId, at])).rows.map((r) => toGrant(r as unknown as GrantRow)),
    async putGrant(grant) {
      await query('grantPut', grantValues(grant))
    },
    revokeGrant: (userId, id) => changed('grantRevoke', [id, userId]),
  }
}
