import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { sqliteGrants } from './grants-sql.ts'
import { migrate } from './migrations.ts'
import { sqlitePageContexts } from './page-context-sql.ts'
import {
  callRow,
  confirmRow,
  decisionRow,
  manifestRow,
  messageRow,
  toCall,
  toConfirm,
  toConversation,
  toDecision,
  toManifest,
  toMessage,
  toSession,
} from './rows.ts'
import { prepareStatements, type Statements } from './statements.ts'
import type {
  CallStore,
  ConfirmBinding,
  ConfirmStore,
  ConversationStore,
  DecisionStore,
  PageStore,
  Store,
  UserStore,
} from './store.ts'

/**
 * Opens (creating when needed) the SQLite store at `file` (`':memory:'` for a throwaway one):
 * WAL journal, foreign keys on, migrations applied (`migrations.ts`), every statement prepared
 * once (`statements.ts`), rows mapped to records and back (`rows.ts`).
 */
export function openSqliteStore(file: string, now: () => number = Date.now): Store {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db)
  const q = prepareStatements(db)
  return {
    ...userMethods(db, q, now),
    ...conversationMethods(q, now),
    ...bindingMethods(db, q, now),
    ...sqliteGrants(db),
    ...sqlitePageContexts(db),
    async close() {
      if (db.open) db.close()
    },
  }
}

const one = <R, T>(row: R | undefined, map: (r: R) => T): T | undefined =>
  row === undefined ? undefined : map(row)

/** Secrets, users and sessions. */
function userMethods(db: Database.Database, q: Statements, now: () => number): UserStore {
  const pruneSessions = db.transaction((idleBefore: number, keep: number): number => {
    const removed = q.expireSessions.run(idleBefore).changes + q.evictSessions.run(keep).changes
    if (removed > 0) for (const statement of q.orphans) statement.run()
    return removed
  })
  return {
    async secret(name, create) {
      const row = q.getSecret.get(name)
      if (row) return row.value
      q.putSecret.run(name, create())
      return q.getSecret.get(name)!.value
    },
    async createUser() {
      const user = { id: randomUUID(), createdAt: now() }
      q.insertUser.run(user.id, user.createdAt)
      return user
    },
    async ensureUser(id) {
      q.ensureUser.run(id, now())
    },
    async createSession(userId) {
      const at = now()
      const session = { id: randomUUID(), userId, createdAt: at, lastSeenAt: at }
      q.insertSession.run(session.id, userId, at, at)
      return session
    },
    getSession: async (id) => one(q.getSession.get(id), toSession),
    async touchSession(id, at) {
      q.touchSession.run(at, id)
    },
    pruneSessions: async (idleBefore, keep) => pruneSessions(idleBefore, keep),
    countSessions: async () => q.countSessions.get()!.n,
  }
}

/** Conversations and their messages. */
function conversationMethods(q: Statements, now: () => number): ConversationStore {
  return {
    countConversations: async (userId) => q.countConversations.get(userId)!.n,
    async createConversation(userId) {
      const conversation = { id: randomUUID(), userId, createdAt: now() }
      q.insertConversation.run(conversation.id, userId, conversation.createdAt)
      return conversation
    },
    getConversation: async (id) => one(q.getConversation.get(id), toConversation),
    async setActiveClient(conversationId, clientId) {
      q.setActive.run(clientId, conversationId)
    },
    getActiveClient: async (conversationId) => q.getActive.get(conversationId)?.active_client_id ?? undefined,
    async addMessage(message) {
      q.insertMessage.run(messageRow(message))
    },
    async updateMessage(id, text, agent, part) {
      q.updateMessage.run(
        text,
        agent === undefined ? null : JSON.stringify(agent),
        part === undefined ? null : JSON.stringify(part),
        id,
      )
    },
    listMessages: async (conversationId) => q.listMessages.all(conversationId).map(toMessage),
  }
}

/** Call and confirmation bindings, the agent calls' decisions and the manifests. */
function bindingMethods(
  db: Database.Database,
  q: Statements,
  now: () => number,
): CallStore & ConfirmStore & DecisionStore & Pick<PageStore, 'putManifest' | 'getManifest'> {
  const expireConfirms = db.transaction((conversationId: string, clientId: string): ConfirmBinding[] => {
    const rows = q.pendingConfirms.all(conversationId, clientId)
    q.expireConfirms.run(conversationId, clientId)
    return rows.map((r) => ({ ...toConfirm(r), state: 'expired' as const }))
  })
  return {
    async insertCall(binding) {
      q.insertCall.run(callRow(binding))
    },
    bindCall: async (binding) => q.bindCall.run(callRow(binding)).changes === 1,
    answerCall: async (id, by, at) =>
      one(q.answerCall.get(id, by.userId, by.conversationId, by.clientId, at), toCall),
    getCall: async (id) => one(q.getCall.get(id), toCall),
    settleCall: async (id, state) => q.settleCall.run(state, id).changes === 1,
    timeOutPendingCalls: async () => q.timeOutPending.run().changes,
    insertConfirm: async (binding) => q.insertConfirm.run(confirmRow(binding)).changes === 1,
    getConfirm: async (confirmId) => one(q.getConfirm.get(confirmId), toConfirm),
    listConfirms: async (conversationId) => q.listConfirms.all(conversationId).map(toConfirm),
    async updateConfirmSummary(confirmId, summary) {
      q.updateConfirmSummary.run(summary, confirmId)
    },
    settleConfirm: async (confirmId, state, at = now()) =>
      q.settleConfirm.run(state, confirmId, state, at).changes === 1,
    expireConfirms: async (conversationId, clientId) => expireConfirms(conversationId, clientId),
    openDecision: async (decision) => q.openDecision.run(decisionRow(decision)).changes === 1,
    closeDecision: async (key, state, at) =>
      q.closeDecision.run(decisionRow({ ...key, entry: '', createdAt: at, expiresAt: at, state })).changes ===
      1,
    pendingDecisions: async (conversationId) => q.pendingDecisions.all(conversationId).map(toDecision),
    putManifest: async (record) => q.putManifest.run(manifestRow(record)).changes === 1,
    getManifest: async (clientId) => one(q.getManifest.get(clientId), toManifest),
  }
}
