/**
 * `@toolmark/server/store`: the `Store` port, for an app that writes its own store or reads the records one
 * keeps. It holds the port, its record types, the in-memory store (the server's default) and the error a
 * store throws when its database is down. The SQLite and PostgreSQL stores are in `/sqlite` and `/postgres`.
 * The port by aggregate (`UserStore`, `ConversationStore`, …) is what each bundled store builds one part of.
 */

export { createMemoryStore } from './store/memory.ts'
export type {
  Answerer,
  CallBinding,
  CallStore,
  ConfirmBinding,
  ConfirmStore,
  Conversation,
  ConversationStore,
  DecisionKey,
  DecisionStore,
  GrantStore,
  ManifestRecord,
  PageStore,
  PendingDecision,
  Session,
  Store,
  StoredGrant,
  StoredMessage,
  User,
  UserStore,
} from './store/store.ts'
export { StoreUnavailableError } from './store/store.ts'
