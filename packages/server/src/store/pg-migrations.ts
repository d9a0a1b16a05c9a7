import type { PoolClient } from 'pg'

/*
 * The PostgreSQL schema, as numbered migrations applied in order. `toolmark_migrations` records the ones
 * applied; instances starting together take a transaction-scoped advisory lock first, so exactly one of
 * them applies each migration. Every table name starts with `toolmark_`, so the app's own database can
 * hold them. Times are epoch milliseconds (BIGINT), as in the records; `seq` columns keep insertion order.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE toolmark_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE toolmark_users (id TEXT PRIMARY KEY, created_at BIGINT NOT NULL);
   CREATE TABLE toolmark_sessions (
     id TEXT PRIMARY KEY, seq BIGSERIAL NOT NULL, user_id TEXT NOT NULL REFERENCES toolmark_users(id),
     created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL);
   CREATE INDEX toolmark_sessions_by_last_seen ON toolmark_sessions (last_seen_at);
   CREATE INDEX toolmark_sessions_by_user ON toolmark_sessions (user_id);
   CREATE TABLE toolmark_conversations (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES toolmark_users(id), created_at BIGINT NOT NULL,
     active_client_id TEXT);
   CREATE INDEX toolmark_conversations_by_user ON toolmark_conversations (user_id);
   CREATE TABLE toolmark_messages (
     seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE,
     conversation_id TEXT NOT NULL REFERENCES toolmark_conversations(id), role TEXT NOT NULL,
     text TEXT NOT NULL, tool TEXT, at BIGINT NOT NULL, visible BOOLEAN NOT NULL, agent JSON);
   CREATE INDEX toolmark_messages_by_conversation ON toolmark_messages (conversation_id, seq);
   CREATE TABLE toolmark_calls (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, client_id TEXT NOT NULL,
     kind TEXT NOT NULL, tool TEXT NOT NULL, tool_call_id TEXT NOT NULL, deadline_at BIGINT NOT NULL,
     created_at BIGINT NOT NULL, state TEXT NOT NULL);
   CREATE INDEX toolmark_calls_pending ON toolmark_calls (state) WHERE state = 'pending';
   CREATE TABLE toolmark_confirms (
     confirm_id TEXT PRIMARY KEY, seq BIGSERIAL NOT NULL, user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL, client_id TEXT NOT NULL, call_id TEXT NOT NULL,
     tool_call_id TEXT NOT NULL, tool TEXT NOT NULL, summary TEXT NOT NULL, created_at BIGINT NOT NULL,
     state TEXT NOT NULL);
   CREATE INDEX toolmark_confirms_by_client ON toolmark_confirms (conversation_id, client_id, state);
   CREATE TABLE toolmark_manifests (
     client_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, rev INTEGER NOT NULL,
     tools JSON NOT NULL, updated_at BIGINT NOT NULL);`,
  // Shared mode: the instance that waits for a call's answer, so the instance holding the page hands it there.
  `ALTER TABLE toolmark_calls ADD COLUMN instance TEXT;`,
  // A confirmation may expire by time: an approval after `expires_at` is refused.
  `ALTER TABLE toolmark_confirms ADD COLUMN expires_at BIGINT;`,
  // A pending decision outlives its page load: a new page load of the conversation is asked again.
  `CREATE TABLE toolmark_decisions (
     conversation_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, user_id TEXT NOT NULL, tool TEXT NOT NULL,
     input JSON, entry TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
     state TEXT NOT NULL, PRIMARY KEY (conversation_id, tool_call_id));
   CREATE INDEX toolmark_decisions_by_user ON toolmark_decisions (user_id);`,
  // A tool line carries the chat's rendering of its page call (a `ToolPart`).
  `ALTER TABLE toolmark_messages ADD COLUMN part JSON;`,
  // Grants: approvals a user chose to remember, per user (http/grants.ts).
  `CREATE TABLE toolmark_grants (
     id TEXT PRIMARY KEY, seq BIGSERIAL NOT NULL, user_id TEXT NOT NULL, tool TEXT NOT NULL, title TEXT,
     fingerprint TEXT NOT NULL, caller TEXT NOT NULL, conversation_id TEXT, created_at BIGINT NOT NULL,
     expires_at BIGINT);
   CREATE INDEX toolmark_grants_by_user ON toolmark_grants (user_id, created_at);`,
  // The latest readable context of each page load (the `context` extension), masked JSON entries.
  `CREATE TABLE toolmark_page_contexts (
     client_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, rev BIGINT NOT NULL,
     entries JSON NOT NULL, updated_at BIGINT NOT NULL);
   CREATE INDEX toolmark_page_contexts_by_user ON toolmark_page_contexts (user_id);`,
]

/** An arbitrary constant: the advisory lock that serializes migrations between instances. */
const MIGRATION_LOCK = 7_364_201_900

/**
 * Applies the migrations the database has not run yet, in one transaction (PostgreSQL's DDL is
 * transactional: all of them or none) under the advisory lock.
 */
export async function migratePostgres(client: PoolClient): Promise<void> {
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(
      'CREATE TABLE IF NOT EXISTS toolmark_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    )
    const { rows } = await client.query<{ n: number }>(
      'SELECT COALESCE(MAX(version), 0)::int AS n FROM toolmark_migrations',
    )
    for (let version = rows[0]!.n + 1; version <= PG_MIGRATIONS.length; version++) {
      await client.query(PG_MIGRATIONS[version - 1]!)
      await client.query('INSERT INTO toolmark_migrations (version) VALUES ($1)', [version])
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}
