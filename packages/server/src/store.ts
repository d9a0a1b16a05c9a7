/**
 * `@toolmark/server/store`: the `Store` port, for an app that writes its own store or reads the records one
 * keeps. It holds the port, its record types, the in-memory store (the server's default) and the error a
 * store throws when its database is down. The SQLite and PostgreSQL stores are in `/sqlite` and `/postgres`.
 */

export { createMemoryStore } from './store/memory.ts'
export type {
  Answerer,
  CallBinding,
  ConfirmBinding,
  Conversation,
  DecisionKey,
  ManifestRecord,
  PendingDecision,
  Session,
  Store,
  StoredGrant,
  StoredMessage,
  User,
} from './store/store.ts'
export { StoreUnavailableError } from './store/store.ts'
