import type {
  CallBinding,
  CallStore,
  ConfirmBinding,
  ConfirmStore,
  Conversation,
  ConversationStore,
  DecisionStore,
  GrantStore,
  ManifestRecord,
  PageContextRecord,
  PageStore,
  PendingDecision,
  Session,
  Store,
  StoredGrant,
  StoredMessage,
  User,
  UserStore,
} from './store.ts'

/**
 * A store that keeps everything in this process's memory, with the SQLite store's rules (single-use
 * compare-and-set updates, the first confirmation binding wins, a manifest with a lower `rev` is
 * dropped, pruning removes the users left without a session and all of their data). Nothing survives a
 * restart and nothing is shared between processes or instances: it suits tests, demos and one
 * long-lived process. Records are copied in and out, so callers never share them with the store.
 */
export function createMemoryStore(now: () => number = Date.now): Store {
  const tables = createTables(now)
  return {
    ...userMethods(tables),
    ...conversationMethods(tables),
    ...callMethods(tables),
    ...confirmMethods(tables),
    ...decisionMethods(tables),
    ...pageMethods(tables),
    ...grantMethods(tables),
    async close() {},
  }
}

/** The memory store's rows, one map per table, shared by the methods of every aggregate. */
interface Tables {
  now: () => number
  secrets: Map<string, string>
  users: Map<string, User>
  sessions: Map<string, Session>
  conversations: Map<string, Conversation & { activeClientId?: string }>
  messages: Map<string, StoredMessage[]>
  messageIds: Map<string, StoredMessage>
  calls: Map<string, CallBinding>
  confirms: Map<string, ConfirmBinding>
  manifests: Map<string, ManifestRecord>
  contexts: Map<string, PageContextRecord>
  /** `conversationId \0 toolCallId` → the agent call's decision. */
  decisions: Map<string, PendingDecision>
  /** Grants by id, oldest first. */
  grants: Map<string, StoredGrant>
}

function createTables(now: () => number): Tables {
  return {
    now,
    secrets: new Map(),
    users: new Map(),
    sessions: new Map(),
    conversations: new Map(),
    messages: new Map(),
    messageIds: new Map(),
    calls: new Map(),
    confirms: new Map(),
    manifests: new Map(),
    contexts: new Map(),
    decisions: new Map(),
    grants: new Map(),
  }
}

const copy = structuredClone

/** A call binding holds only strings and numbers: a shallow copy is a full one, and far cheaper than a clone. */
const copyCall = (binding: CallBinding): CallBinding => ({ ...binding })

const decisionKey = (d: { conversationId: string; toolCallId: string }) =>
  `${d.conversationId}\u0000${d.toolCallId}`

/** Removes the users left without a session, with everything they own. */
function removeOrphans(t: Tables): void {
  const { sessions, conversations, messages, messageIds, users } = t
  const reachable = new Set([...sessions.values()].map((s) => s.userId))
  for (const [id, conversation] of conversations) {
    if (reachable.has(conversation.userId)) continue
    for (const m of messages.get(id) ?? []) messageIds.delete(m.id)
    messages.delete(id)
    conversations.delete(id)
  }
  for (const table of [t.calls, t.confirms, t.manifests, t.contexts, t.decisions, t.grants] as Array<
    Map<string, { userId: string }>
  >)
    for (const [key, row] of table) if (!reachable.has(row.userId)) table.delete(key)
  for (const id of users.keys()) if (!reachable.has(id)) users.delete(id)
}

/** Secrets, users and sessions. */
function userMethods(t: Tables): UserStore {
  const { now, secrets, users, sessions } = t
  return {
    async secret(name, create) {
      if (!secrets.has(name)) secrets.set(name, create())
      return secrets.get(name) as string
    },
    async createUser() {
      const user = { id: crypto.randomUUID(), createdAt: now() }
      users.set(user.id, user)
      return copy(user)
    },
    async ensureUser(id) {
      if (!users.has(id)) users.set(id, { id, createdAt: now() })
    },
    async createSession(userId) {
      const at = now()
      const session = { id: crypto.randomUUID(), userId, createdAt: at, lastSeenAt: at }
      sessions.set(session.id, session)
      return copy(session)
    },
    getSession: async (id) => {
      const session = sessions.get(id)
      return session && copy(session)
    },
    async touchSession(id, at) {
      const session = sessions.get(id)
      if (session) session.lastSeenAt = at
    },
    async pruneSessions(idleBefore, keep) {
      let removed = 0
      for (const [id, session] of sessions)
        if (session.lastSeenAt <= idleBefore) {
          sessions.delete(id)
          removed++
        }
      // Newest first; among equal times, the later created first (as the SQLite store orders by rowid).
      const order = [...sessions.values()].reverse().sort((a, b) => b.lastSeenAt - a.lastSeenAt)
      for (const session of order.slice(Math.max(0, keep))) {
        sessions.delete(session.id)
        removed++
      }
      if (removed > 0) removeOrphans(t)
      return removed
    },
    countSessions: async () => sessions.size,
  }
}

/** Conversations and their messages. */
function conversationMethods(t: Tables): ConversationStore {
  const { now, users, conversations, messages, messageIds } = t
  return {
    async countConversations(userId) {
      let n = 0
      for (const conversation of conversations.values()) if (conversation.userId === userId) n++
      return n
    },
    async createConversation(userId) {
      if (!users.has(userId)) throw new Error(`No such user: ${userId}`)
      const conversation = { id: crypto.randomUUID(), userId, createdAt: now() }
      conversations.set(conversation.id, { ...conversation })
      return conversation
    },
    async getConversation(id) {
      const row = conversations.get(id)
      return row && { id: row.id, userId: row.userId, createdAt: row.createdAt }
    },
    async setActiveClient(conversationId, clientId) {
      const row = conversations.get(conversationId)
      if (row) row.activeClientId = clientId
    },
    getActiveClient: async (conversationId) => conversations.get(conversationId)?.activeClientId,
    async addMessage(message) {
      if (messageIds.has(message.id)) throw new Error(`Duplicate message id: ${message.id}`)
      if (!conversations.has(message.conversationId))
        throw new Error(`No such conversation: ${message.conversationId}`)
      const row = copy(message)
      messageIds.set(row.id, row)
      const list = messages.get(row.conversationId) ?? []
      list.push(row)
      messages.set(row.conversationId, list)
    },
    listMessages: async (conversationId) => copy(messages.get(conversationId) ?? []),
    async updateMessage(id, text, agent, part) {
      const row = messageIds.get(id)
      if (!row) return
      row.text = text
      if (part !== undefined) row.part = copy(part)
      if (agent === undefined) delete row.agent
      else row.agent = copy(agent)
    },
  }
}

/** Call bindings: which page load may answer which call, answered once. */
function callMethods(t: Tables): CallStore {
  const { conversations, calls } = t
  return {
    async insertCall(binding) {
      if (calls.has(binding.id)) throw new Error(`Duplicate call id: ${binding.id}`)
      calls.set(binding.id, copyCall(binding))
    },
    async bindCall(binding) {
      const conversation = conversations.get(binding.conversationId)
      if (conversation?.userId !== binding.userId || conversation.activeClientId !== binding.clientId)
        return false
      if (calls.has(binding.id)) throw new Error(`Duplicate call id: ${binding.id}`)
      calls.set(binding.id, copyCall(binding))
      return true
    },
    async answerCall(id, by, at) {
      const row = calls.get(id)
      if (
        row?.state !== 'pending' ||
        row.userId !== by.userId ||
        row.conversationId !== by.conversationId ||
        row.clientId !== by.clientId ||
        at > row.deadlineAt
      )
        return undefined
      row.state = 'answered'
      return copyCall(row)
    },
    getCall: async (id) => {
      const row = calls.get(id)
      return row && copyCall(row)
    },
    async settleCall(id, state) {
      const row = calls.get(id)
      if (row?.state !== 'pending') return false
      row.state = state
      return true
    },
    async timeOutPendingCalls() {
      let n = 0
      for (const row of calls.values())
        if (row.state === 'pending') {
          row.state = 'timed_out'
          n++
        }
      return n
    },
  }
}

/** Confirmation bindings: the first binding wins, each is used once. */
function confirmMethods(t: Tables): ConfirmStore {
  const { now, confirms } = t
  return {
    async insertConfirm(binding) {
      if (confirms.has(binding.confirmId)) return false
      confirms.set(binding.confirmId, copy(binding))
      return true
    },
    getConfirm: async (confirmId) => {
      const row = confirms.get(confirmId)
      return row && copy(row)
    },
    listConfirms: async (conversationId) =>
      copy(
        [...confirms.values()]
          .filter((c) => c.conversationId === conversationId)
          .sort((a, b) => a.createdAt - b.createdAt),
      ),
    async updateConfirmSummary(confirmId, summary) {
      const row = confirms.get(confirmId)
      if (row) row.summary = summary
    },
    async settleConfirm(confirmId, state, at = now()) {
      const row = confirms.get(confirmId)
      if (row?.state !== 'pending') return false
      if (state === 'used' && row.expiresAt !== undefined && row.expiresAt <= at) return false
      row.state = state
      return true
    },
    async expireConfirms(conversationId, clientId) {
      const expired: ConfirmBinding[] = []
      for (const row of confirms.values())
        if (row.conversationId === conversationId && row.clientId === clientId && row.state === 'pending') {
          row.state = 'expired'
          expired.push(copy(row))
        }
      return expired
    },
  }
}

/** The agent calls' pending decisions, closed once. */
function decisionMethods(t: Tables): DecisionStore {
  const { decisions } = t
  return {
    async openDecision(decision) {
      const key = decisionKey(decision)
      if (decisions.has(key)) return false
      decisions.set(key, copy(decision))
      return true
    },
    async closeDecision(key, state, at) {
      const row = decisions.get(decisionKey(key))
      if (row && row.state !== 'pending') return false
      if (row) row.state = state
      else decisions.set(decisionKey(key), { ...key, entry: '', createdAt: at, expiresAt: at, state })
      return true
    },
    pendingDecisions: async (conversationId) =>
      copy(
        [...decisions.values()]
          .filter((d) => d.conversationId === conversationId && d.state === 'pending')
          .sort((a, b) => a.createdAt - b.createdAt),
      ),
  }
}

/** Each page load's manifest and page context; a lower `rev` is dropped. */
function pageMethods(t: Tables): Omit<PageStore, 'getActivePage'> {
  const { manifests, contexts } = t
  return {
    async putManifest(record) {
      const row = manifests.get(record.clientId)
      if (!row) {
        manifests.set(record.clientId, copy(record))
        return true
      }
      if (record.rev < row.rev) return false
      // Like the SQLite upsert: the page load's user and conversation stay those of its first manifest.
      manifests.set(record.clientId, {
        ...copy(record),
        userId: row.userId,
        conversationId: row.conversationId,
      })
      return true
    },
    getManifest: async (clientId) => {
      const row = manifests.get(clientId)
      return row && copy(row)
    },
    async putPageContext(record) {
      const row = contexts.get(record.clientId)
      if (row && record.rev < row.rev) return false
      contexts.set(record.clientId, copy(record))
      return true
    },
    getPageContext: async (clientId) => {
      const row = contexts.get(clientId)
      return row && copy(row)
    },
  }
}

/** Grants: one per user, tool, caller and conversation; the newest replaces the older. */
function grantMethods(t: Tables): GrantStore {
  const { grants } = t
  return {
    listGrants: async (userId, at) =>
      [...grants.values()]
        .filter((g) => g.userId === userId && (g.expiresAt === undefined || at < g.expiresAt))
        .reverse()
        .map((g) => copy(g)),
    async putGrant(grant) {
      for (const [id, g] of grants)
        if (
          g.userId === grant.userId &&
          g.tool === grant.tool &&
          g.caller === grant.caller &&
          g.conversationId === grant.conversationId
        )
          grants.delete(id)
      grants.set(grant.id, copy(grant))
    },
    async revokeGrant(userId, id) {
      if (grants.get(id)?.userId !== userId) return false
      return grants.delete(id)
    },
  }
}
