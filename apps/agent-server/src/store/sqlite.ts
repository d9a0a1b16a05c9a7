import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type {
  CallBinding,
  ConfirmBinding,
  Conversation,
  ManifestRecord,
  Session,
  Store,
  StoredMessage,
} from './store.ts'

/** Schema migrations, applied in order; `PRAGMA user_version` records how many ran. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE users (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
   CREATE TABLE sessions (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), created_at INTEGER NOT NULL);
   CREATE TABLE conversations (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), created_at INTEGER NOT NULL,
     active_client_id TEXT);
   CREATE TABLE messages (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
     conversation_id TEXT NOT NULL REFERENCES conversations(id), role TEXT NOT NULL, text TEXT NOT NULL,
     tool TEXT, at INTEGER NOT NULL, visible INTEGER NOT NULL, agent TEXT);
   CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
   CREATE TABLE call_bindings (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, client_id TEXT NOT NULL,
     kind TEXT NOT NULL, tool TEXT NOT NULL, tool_call_id TEXT NOT NULL, deadline_at INTEGER NOT NULL,
     created_at INTEGER NOT NULL, state TEXT NOT NULL);
   CREATE INDEX call_bindings_pending ON call_bindings (state);
   CREATE TABLE confirm_bindings (
     confirm_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
     client_id TEXT NOT NULL, call_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, tool TEXT NOT NULL,
     summary TEXT NOT NULL, created_at INTEGER NOT NULL, state TEXT NOT NULL);
   CREATE INDEX confirm_bindings_by_client ON confirm_bindings (conversation_id, client_id, state);
   CREATE TABLE manifests (
     client_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, rev INTEGER NOT NULL,
     tools TEXT NOT NULL, updated_at INTEGER NOT NULL);`,
  // Sessions expire when unused (sliding TTL) and the table is bounded, so both need last use.
  `ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0;
   UPDATE sessions SET last_seen_at = created_at;
   CREATE INDEX sessions_by_last_seen ON sessions (last_seen_at);
   CREATE INDEX sessions_by_user ON sessions (user_id);
   CREATE INDEX conversations_by_user ON conversations (user_id);`,
]

interface MessageRow {
  id: string
  conversation_id: string
  role: StoredMessage['role']
  text: string
  tool: string | null
  at: number
  visible: number
  agent: string | null
}

interface CallRow {
  id: string
  user_id: string
  conversation_id: string
  client_id: string
  kind: CallBinding['kind']
  tool: string
  tool_call_id: string
  deadline_at: number
  created_at: number
  state: CallBinding['state']
}

interface ConfirmRow {
  confirm_id: string
  user_id: string
  conversation_id: string
  client_id: string
  call_id: string
  tool_call_id: string
  tool: string
  summary: string
  created_at: number
  state: ConfirmBinding['state']
}

const toCall = (r: CallRow): CallBinding => ({
  id: r.id,
  userId: r.user_id,
  conversationId: r.conversation_id,
  clientId: r.client_id,
  kind: r.kind,
  tool: r.tool,
  toolCallId: r.tool_call_id,
  deadlineAt: r.deadline_at,
  createdAt: r.created_at,
  state: r.state,
})

const toConfirm = (r: ConfirmRow): ConfirmBinding => ({
  confirmId: r.confirm_id,
  userId: r.user_id,
  conversationId: r.conversation_id,
  clientId: r.client_id,
  callId: r.call_id,
  toolCallId: r.tool_call_id,
  tool: r.tool,
  summary: r.summary,
  createdAt: r.created_at,
  state: r.state,
})

const toMessage = (r: MessageRow): StoredMessage => {
  const message: StoredMessage = {
    id: r.id,
    conversationId: r.conversation_id,
    role: r.role,
    text: r.text,
    at: r.at,
    visible: r.visible === 1,
  }
  if (r.tool !== null) message.tool = r.tool
  if (r.agent !== null) message.agent = JSON.parse(r.agent)
  return message
}

/**
 * Opens (creating when needed) the SQLite store at `file` (`':memory:'` for a throwaway one):
 * WAL journal, foreign keys on, migrations applied, every statement prepared once.
 */
export function openSqliteStore(file: string, now: () => number = Date.now): Store {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  const applied = db.pragma('user_version', { simple: true }) as number
  for (let i = applied; i < MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[i]!)
      db.pragma(`user_version = ${i + 1}`)
    })()
  }

  const q = {
    getSecret: db.prepare<[string], { value: string }>('SELECT value FROM secrets WHERE name = ?'),
    putSecret: db.prepare('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)'),
    insertUser: db.prepare('INSERT INTO users (id, created_at) VALUES (?, ?)'),
    insertSession: db.prepare(
      'INSERT INTO sessions (id, user_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)',
    ),
    getSession: db.prepare<
      [string],
      { id: string; user_id: string; created_at: number; last_seen_at: number }
    >('SELECT id, user_id, created_at, last_seen_at FROM sessions WHERE id = ?'),
    touchSession: db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id = ?'),
    expireSessions: db.prepare('DELETE FROM sessions WHERE last_seen_at <= ?'),
    evictSessions: db.prepare(
      'DELETE FROM sessions WHERE id IN (SELECT id FROM sessions ORDER BY last_seen_at DESC, rowid DESC LIMIT -1 OFFSET ?)',
    ),
    // A user is reachable only through a session: once the last one is gone, so is their data.
    orphans: [
      'DELETE FROM messages WHERE conversation_id IN (SELECT id FROM conversations WHERE user_id NOT IN (SELECT user_id FROM sessions))',
      'DELETE FROM call_bindings WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM confirm_bindings WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM manifests WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM conversations WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM users WHERE id NOT IN (SELECT user_id FROM sessions)',
    ].map((sql) => db.prepare(sql)),
    countSessions: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM sessions'),
    insertConversation: db.prepare('INSERT INTO conversations (id, user_id, created_at) VALUES (?, ?, ?)'),
    getConversation: db.prepare<[string], { id: string; user_id: string; created_at: number }>(
      'SELECT id, user_id, created_at FROM conversations WHERE id = ?',
    ),
    setActive: db.prepare('UPDATE conversations SET active_client_id = ? WHERE id = ?'),
    getActive: db.prepare<[string], { active_client_id: string | null }>(
      'SELECT active_client_id FROM conversations WHERE id = ?',
    ),
    insertMessage: db.prepare(
      `INSERT INTO messages (id, conversation_id, role, text, tool, at, visible, agent)
       VALUES (@id, @conversation_id, @role, @text, @tool, @at, @visible, @agent)`,
    ),
    updateMessage: db.prepare('UPDATE messages SET text = ?, agent = ? WHERE id = ?'),
    listMessages: db.prepare<[string], MessageRow>(
      'SELECT id, conversation_id, role, text, tool, at, visible, agent FROM messages WHERE conversation_id = ? ORDER BY seq',
    ),
    insertCall: db.prepare(
      `INSERT INTO call_bindings (id, user_id, conversation_id, client_id, kind, tool, tool_call_id, deadline_at, created_at, state)
       VALUES (@id, @user_id, @conversation_id, @client_id, @kind, @tool, @tool_call_id, @deadline_at, @created_at, @state)`,
    ),
    getCall: db.prepare<[string], CallRow>('SELECT * FROM call_bindings WHERE id = ?'),
    settleCall: db.prepare("UPDATE call_bindings SET state = ? WHERE id = ? AND state = 'pending'"),
    timeOutPending: db.prepare("UPDATE call_bindings SET state = 'timed_out' WHERE state = 'pending'"),
    insertConfirm: db.prepare(
      `INSERT OR IGNORE INTO confirm_bindings
       (confirm_id, user_id, conversation_id, client_id, call_id, tool_call_id, tool, summary, created_at, state)
       VALUES (@confirm_id, @user_id, @conversation_id, @client_id, @call_id, @tool_call_id, @tool, @summary, @created_at, @state)`,
    ),
    getConfirm: db.prepare<[string], ConfirmRow>('SELECT * FROM confirm_bindings WHERE confirm_id = ?'),
    settleConfirm: db.prepare(
      "UPDATE confirm_bindings SET state = ? WHERE confirm_id = ? AND state = 'pending'",
    ),
    pendingConfirms: db.prepare<[string, string], ConfirmRow>(
      "SELECT * FROM confirm_bindings WHERE conversation_id = ? AND client_id = ? AND state = 'pending'",
    ),
    expireConfirms: db.prepare(
      "UPDATE confirm_bindings SET state = 'expired' WHERE conversation_id = ? AND client_id = ? AND state = 'pending'",
    ),
    putManifest: db.prepare(
      `INSERT INTO manifests (client_id, user_id, conversation_id, rev, tools, updated_at)
       VALUES (@client_id, @user_id, @conversation_id, @rev, @tools, @updated_at)
       ON CONFLICT (client_id) DO UPDATE SET rev = excluded.rev, tools = excluded.tools, updated_at = excluded.updated_at
       WHERE excluded.rev >= manifests.rev`,
    ),
    getManifest: db.prepare<
      [string],
      {
        client_id: string
        user_id: string
        conversation_id: string
        rev: number
        tools: string
        updated_at: number
      }
    >('SELECT * FROM manifests WHERE client_id = ?'),
  }

  const expireConfirms = db.transaction((conversationId: string, clientId: string): ConfirmBinding[] => {
    const rows = q.pendingConfirms.all(conversationId, clientId)
    q.expireConfirms.run(conversationId, clientId)
    return rows.map((r) => ({ ...toConfirm(r), state: 'expired' as const }))
  })

  const pruneSessions = db.transaction((idleBefore: number, keep: number): number => {
    const removed = q.expireSessions.run(idleBefore).changes + q.evictSessions.run(keep).changes
    if (removed > 0) for (const statement of q.orphans) statement.run()
    return removed
  })

  return {
    secret(name, create) {
      const row = q.getSecret.get(name)
      if (row) return row.value
      q.putSecret.run(name, create())
      return q.getSecret.get(name)!.value
    },
    createUser() {
      const user = { id: randomUUID(), createdAt: now() }
      q.insertUser.run(user.id, user.createdAt)
      return user
    },
    createSession(userId) {
      const at = now()
      const session = { id: randomUUID(), userId, createdAt: at, lastSeenAt: at }
      q.insertSession.run(session.id, userId, at, at)
      return session
    },
    getSession(id): Session | undefined {
      const r = q.getSession.get(id)
      return r && { id: r.id, userId: r.user_id, createdAt: r.created_at, lastSeenAt: r.last_seen_at }
    },
    touchSession(id, at) {
      q.touchSession.run(at, id)
    },
    pruneSessions(idleBefore, keep) {
      return pruneSessions(idleBefore, keep)
    },
    countSessions() {
      return q.countSessions.get()!.n
    },
    createConversation(userId) {
      const conversation = { id: randomUUID(), userId, createdAt: now() }
      q.insertConversation.run(conversation.id, userId, conversation.createdAt)
      return conversation
    },
    getConversation(id): Conversation | undefined {
      const r = q.getConversation.get(id)
      return r && { id: r.id, userId: r.user_id, createdAt: r.created_at }
    },
    setActiveClient(conversationId, clientId) {
      q.setActive.run(clientId, conversationId)
    },
    getActiveClient(conversationId) {
      return q.getActive.get(conversationId)?.active_client_id ?? undefined
    },
    addMessage(m) {
      q.insertMessage.run({
        id: m.id,
        conversation_id: m.conversationId,
        role: m.role,
        text: m.text,
        tool: m.tool ?? null,
        at: m.at,
        visible: m.visible ? 1 : 0,
        agent: m.agent === undefined ? null : JSON.stringify(m.agent),
      })
    },
    updateMessage(id, text, agent) {
      q.updateMessage.run(text, agent === undefined ? null : JSON.stringify(agent), id)
    },
    listMessages(conversationId) {
      return q.listMessages.all(conversationId).map(toMessage)
    },
    insertCall(b) {
      q.insertCall.run({
        id: b.id,
        user_id: b.userId,
        conversation_id: b.conversationId,
        client_id: b.clientId,
        kind: b.kind,
        tool: b.tool,
        tool_call_id: b.toolCallId,
        deadline_at: b.deadlineAt,
        created_at: b.createdAt,
        state: b.state,
      })
    },
    getCall(id) {
      const r = q.getCall.get(id)
      return r && toCall(r)
    },
    settleCall(id, state) {
      return q.settleCall.run(state, id).changes === 1
    },
    timeOutPendingCalls() {
      return q.timeOutPending.run().changes
    },
    insertConfirm(b) {
      return (
        q.insertConfirm.run({
          confirm_id: b.confirmId,
          user_id: b.userId,
          conversation_id: b.conversationId,
          client_id: b.clientId,
          call_id: b.callId,
          tool_call_id: b.toolCallId,
          tool: b.tool,
          summary: b.summary,
          created_at: b.createdAt,
          state: b.state,
        }).changes === 1
      )
    },
    getConfirm(confirmId) {
      const r = q.getConfirm.get(confirmId)
      return r && toConfirm(r)
    },
    settleConfirm(confirmId, state) {
      return q.settleConfirm.run(state, confirmId).changes === 1
    },
    expireConfirms(conversationId, clientId) {
      return expireConfirms(conversationId, clientId)
    },
    putManifest(r) {
      return (
        q.putManifest.run({
          client_id: r.clientId,
          user_id: r.userId,
          conversation_id: r.conversationId,
          rev: r.rev,
          tools: JSON.stringify(r.tools),
          updated_at: r.updatedAt,
        }).changes === 1
      )
    },
    getManifest(clientId): ManifestRecord | undefined {
      const r = q.getManifest.get(clientId)
      return (
        r && {
          clientId: r.client_id,
          userId: r.user_id,
          conversationId: r.conversation_id,
          rev: r.rev,
          tools: JSON.parse(r.tools),
          updatedAt: r.updated_at,
        }
      )
    },
    close() {
      if (db.open) db.close()
    },
  }
}
