import type Database from 'better-sqlite3'

/** Schema migrations, applied in order; `PRAGMA user_version` records how many ran. */
export const MIGRATIONS: readonly string[] = [
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
  // A confirmation may expire by time: an approval after `expires_at` is refused.
  `ALTER TABLE confirm_bindings ADD COLUMN expires_at INTEGER;`,
  // A pending decision outlives its page load: a new page load of the conversation is asked again.
  `CREATE TABLE decisions (
     conversation_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, user_id TEXT NOT NULL, tool TEXT NOT NULL,
     input TEXT, entry TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
     state TEXT NOT NULL, PRIMARY KEY (conversation_id, tool_call_id));
   CREATE INDEX decisions_by_user ON decisions (user_id);`,
  // A tool line carries the chat's rendering of its page call (a JSON `ToolPart`).
  `ALTER TABLE messages ADD COLUMN part TEXT;`,
  // Grants: approvals a user chose to remember, per user (http/grants.ts).
  `CREATE TABLE grants (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL, tool TEXT NOT NULL, title TEXT, fingerprint TEXT NOT NULL,
     caller TEXT NOT NULL, conversation_id TEXT, created_at INTEGER NOT NULL, expires_at INTEGER);
   CREATE INDEX grants_by_user ON grants (user_id, created_at);`,
  // The latest readable context of each page load (the `context` extension), masked JSON entries.
  `CREATE TABLE page_contexts (
     client_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, rev INTEGER NOT NULL,
     entries TEXT NOT NULL, updated_at INTEGER NOT NULL);
   CREATE INDEX page_contexts_by_user ON page_contexts (user_id);`,
]

/** Applies the migrations `db` has not run yet, each in its own transaction. */
export function migrate(db: Database.Database): void {
  const applied = db.pragma('user_version', { simple: true }) as number
  for (let i = applied; i < MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[i]!)
      db.pragma(`user_version = ${i + 1}`)
    })()
  }
}
