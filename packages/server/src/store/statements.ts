import type Database from 'better-sqlite3'
import type {
  CallRow,
  ConfirmRow,
  ConversationRow,
  DecisionRow,
  ManifestRow,
  MessageRow,
  SessionRow,
} from './rows.ts'

/** Every statement of the SQLite store, prepared once when it opens. */
export function prepareStatements(db: Database.Database) {
  return {
    ...userStatements(db),
    ...conversationStatements(db),
    ...bindingStatements(db),
    ...decisionStatements(db),
  }
}

/** Secrets, users and sessions, with the pruning of what a removed session leaves behind. */
function userStatements(db: Database.Database) {
  return {
    getSecret: db.prepare<[string], { value: string }>('SELECT value FROM secrets WHERE name = ?'),
    putSecret: db.prepare('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)'),
    insertUser: db.prepare('INSERT INTO users (id, created_at) VALUES (?, ?)'),
    ensureUser: db.prepare('INSERT OR IGNORE INTO users (id, created_at) VALUES (?, ?)'),
    insertSession: db.prepare(
      'INSERT INTO sessions (id, user_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)',
    ),
    getSession: db.prepare<[string], SessionRow>(
      'SELECT id, user_id, created_at, last_seen_at FROM sessions WHERE id = ?',
    ),
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
      'DELETE FROM decisions WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM manifests WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM page_contexts WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM grants WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM conversations WHERE user_id NOT IN (SELECT user_id FROM sessions)',
      'DELETE FROM users WHERE id NOT IN (SELECT user_id FROM sessions)',
    ].map((sql) => db.prepare(sql)),
    countSessions: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM sessions'),
  }
}

/** Conversations and their messages. */
function conversationStatements(db: Database.Database) {
  return {
    countConversations: db.prepare<[string], { n: number }>(
      'SELECT COUNT(*) AS n FROM conversations WHERE user_id = ?',
    ),
    insertConversation: db.prepare('INSERT INTO conversations (id, user_id, created_at) VALUES (?, ?, ?)'),
    getConversation: db.prepare<[string], ConversationRow>(
      'SELECT id, user_id, created_at FROM conversations WHERE id = ?',
    ),
    setActive: db.prepare('UPDATE conversations SET active_client_id = ? WHERE id = ?'),
    getActive: db.prepare<[string], { active_client_id: string | null }>(
      'SELECT active_client_id FROM conversations WHERE id = ?',
    ),
    insertMessage: db.prepare<[MessageRow]>(
      `INSERT INTO messages (id, conversation_id, role, text, tool, at, visible, agent, part)
         VALUES (@id, @conversation_id, @role, @text, @tool, @at, @visible, @agent, @part)`,
    ),
    updateMessage: db.prepare(
      'UPDATE messages SET text = ?, agent = ?, part = COALESCE(?, part) WHERE id = ?',
    ),
    listMessages: db.prepare<[string], MessageRow>(
      'SELECT id, conversation_id, role, text, tool, at, visible, agent, part FROM messages WHERE conversation_id = ? ORDER BY seq',
    ),
  }
}

/** Call and confirmation bindings. */
function bindingStatements(db: Database.Database) {
  return {
    insertCall: db.prepare<[CallRow]>(
      `INSERT INTO call_bindings (id, user_id, conversation_id, client_id, kind, tool, tool_call_id, deadline_at, created_at, state)
         VALUES (@id, @user_id, @conversation_id, @client_id, @kind, @tool, @tool_call_id, @deadline_at, @created_at, @state)`,
    ),
    // The call is stored only while the conversation (of this user) is still bound to the call's page load.
    bindCall: db.prepare<[CallRow]>(
      `INSERT INTO call_bindings (id, user_id, conversation_id, client_id, kind, tool, tool_call_id, deadline_at, created_at, state)
         SELECT @id, @user_id, @conversation_id, @client_id, @kind, @tool, @tool_call_id, @deadline_at, @created_at, @state
         WHERE EXISTS (SELECT 1 FROM conversations
           WHERE id = @conversation_id AND user_id = @user_id AND active_client_id = @client_id)`,
    ),
    answerCall: db.prepare<[string, string, string, string, number], CallRow>(
      `UPDATE call_bindings SET state = 'answered'
         WHERE id = ? AND state = 'pending' AND user_id = ? AND conversation_id = ? AND client_id = ? AND deadline_at >= ?
         RETURNING *`,
    ),
    getCall: db.prepare<[string], CallRow>('SELECT * FROM call_bindings WHERE id = ?'),
    settleCall: db.prepare("UPDATE call_bindings SET state = ? WHERE id = ? AND state = 'pending'"),
    timeOutPending: db.prepare("UPDATE call_bindings SET state = 'timed_out' WHERE state = 'pending'"),
    insertConfirm: db.prepare<[ConfirmRow]>(
      `INSERT OR IGNORE INTO confirm_bindings
         (confirm_id, user_id, conversation_id, client_id, call_id, tool_call_id, tool, summary, created_at, state, expires_at)
         VALUES (@confirm_id, @user_id, @conversation_id, @client_id, @call_id, @tool_call_id, @tool, @summary, @created_at, @state, @expires_at)`,
    ),
    getConfirm: db.prepare<[string], ConfirmRow>('SELECT * FROM confirm_bindings WHERE confirm_id = ?'),
    listConfirms: db.prepare<[string], ConfirmRow>(
      'SELECT * FROM confirm_bindings WHERE conversation_id = ? ORDER BY created_at, rowid',
    ),
    updateConfirmSummary: db.prepare('UPDATE confirm_bindings SET summary = ? WHERE confirm_id = ?'),
    settleConfirm: db.prepare(
      "UPDATE confirm_bindings SET state = ? WHERE confirm_id = ? AND state = 'pending' AND (? = 'expired' OR expires_at IS NULL OR expires_at > ?)",
    ),
    pendingConfirms: db.prepare<[string, string], ConfirmRow>(
      "SELECT * FROM confirm_bindings WHERE conversation_id = ? AND client_id = ? AND state = 'pending'",
    ),
    expireConfirms: db.prepare(
      "UPDATE confirm_bindings SET state = 'expired' WHERE conversation_id = ? AND client_id = ? AND state = 'pending'",
    ),
  }
}

/** Manifests and the agent calls' decisions. */
function decisionStatements(db: Database.Database) {
  return {
    putManifest: db.prepare<[ManifestRow]>(
      `INSERT INTO manifests (client_id, user_id, conversation_id, rev, tools, updated_at)
         VALUES (@client_id, @user_id, @conversation_id, @rev, @tools, @updated_at)
         ON CONFLICT (client_id) DO UPDATE SET rev = excluded.rev, tools = excluded.tools, updated_at = excluded.updated_at
         WHERE excluded.rev >= manifests.rev`,
    ),
    openDecision: db.prepare<[DecisionRow]>(
      `INSERT OR IGNORE INTO decisions
         (conversation_id, tool_call_id, user_id, tool, input, entry, created_at, expires_at, state)
         VALUES (@conversation_id, @tool_call_id, @user_id, @tool, @input, @entry, @created_at, @expires_at, @state)`,
    ),
    // From pending, or from nothing (a closed record is stored): one statement, so one of two closers wins.
    closeDecision: db.prepare<[DecisionRow]>(
      `INSERT INTO decisions
         (conversation_id, tool_call_id, user_id, tool, input, entry, created_at, expires_at, state)
         VALUES (@conversation_id, @tool_call_id, @user_id, @tool, @input, @entry, @created_at, @expires_at, @state)
         ON CONFLICT (conversation_id, tool_call_id) DO UPDATE SET state = excluded.state
         WHERE decisions.state = 'pending'`,
    ),
    pendingDecisions: db.prepare<[string], DecisionRow>(
      "SELECT * FROM decisions WHERE conversation_id = ? AND state = 'pending' ORDER BY created_at, rowid",
    ),
    getManifest: db.prepare<[string], ManifestRow>('SELECT * FROM manifests WHERE client_id = ?'),
  }
}

/** The prepared statements of one open store. */
export type Statements = ReturnType<typeof prepareStatements>
