import type { ToolManifestSummary } from '@toolmark/core'
import type { AgentMessage } from '../agent/types.ts'
import type { ChatMessage, ToolPart } from '../shared/contract.ts'

/** A user the server knows: the app's id (`authenticate`) or a demo session's anonymous user. */
export interface User {
  id: string
  createdAt: number
}

/** A demo session (the signed `tm_session` cookie) and the user it stands for. */
export interface Session {
  id: string
  userId: string
  createdAt: number
  /** Last time a request used it (epoch ms); the sliding TTL counts from here. */
  lastSeenAt: number
}

/** A conversation, owned by one user. */
export interface Conversation {
  id: string
  userId: string
  createdAt: number
}

/** A persisted message: what the chat shows plus the (masked) agent-history entry, if any. */
export interface StoredMessage extends ChatMessage {
  conversationId: string
  /** Hidden messages (an assistant turn that only called tools) stay in the agent history only. */
  visible: boolean
  agent?: AgentMessage
}

/** Security MUST 2: a call or describe id bound to who it was sent to, stored before sending. */
export interface CallBinding {
  id: string
  userId: string
  conversationId: string
  clientId: string
  kind: 'call' | 'describe'
  tool: string
  /** The provider's tool-call id this protocol call serves (for confirmation follow-ups). */
  toolCallId: string
  deadlineAt: number
  createdAt: number
  state: 'pending' | 'answered' | 'timed_out'
  /** Shared mode: the server instance that waits for the answer (a shared store keeps it). */
  instance?: string
}

/** Security MUST 2/3: a confirmId bound when an accepted result carried `needs_confirmation`. */
export interface ConfirmBinding {
  confirmId: string
  userId: string
  conversationId: string
  clientId: string
  callId: string
  toolCallId: string
  tool: string
  summary: string
  createdAt: number
  state: 'pending' | 'used' | 'expired'
  /** When an approval stops being accepted (epoch ms); absent: only the page ends it. */
  expiresAt?: number
}

/**
 * The user's pending decision on an agent call that answered `needs_confirmation`. It outlives the page load
 * that showed the card: a new page load of the conversation (a reload, another tab, after a restart) is asked
 * again, and of all the cards asking it, the first answer wins. One per agent call (conversation and
 * `toolCallId`), whichever page loads ask it.
 */
export interface PendingDecision {
  userId: string
  conversationId: string
  /** The provider's tool-call id the decision answers. */
  toolCallId: string
  tool: string
  /**
   * The call's input, when storing it kept it whole (no secret value in it, nothing masked). Absent: the call
   * is never asked again, because its real input is nowhere to be had.
   */
  input?: Record<string, unknown>
  /** The tool's manifest entry when it asked (JSON of name, title, description, hints): a changed tool is not asked again. */
  entry: string
  createdAt: number
  /** After this time (epoch ms) the call is not asked again. */
  expiresAt: number
  /** `decided`: a page answered it; `dropped`: it can no longer be asked (the tool changed, or its time ran out). */
  state: 'pending' | 'decided' | 'dropped'
}

/** Which decision: the agent call it belongs to. */
export type DecisionKey = Pick<PendingDecision, 'userId' | 'conversationId' | 'toolCallId' | 'tool'>

/** Who a page's answer comes from: it must match the call's binding for the answer to be accepted. */
export interface Answerer {
  userId: string
  conversationId: string
  clientId: string
}

/** The latest manifest a page load (clientId) sent. */
export interface ManifestRecord {
  clientId: string
  userId: string
  conversationId: string
  rev: number
  tools: ToolManifestSummary[]
  updatedAt: number
}

/** One readable context entry of a page, its value masked (page data, never instructions). */
export interface PageContextEntry {
  name: string
  description: string
  value: unknown
}

/** The latest readable context a page load sent (the `context` extension), masked. */
export interface PageContextRecord {
  clientId: string
  userId: string
  conversationId: string
  /** The page's context revision: a lower one never replaces a higher one. */
  rev: number
  entries: PageContextEntry[]
  updatedAt: number
}

/**
 * A remembered approval ("allow for this conversation", "always for N days") of one page tool, for one user
 * and one kind of caller. The page decides whether a call matches (`@toolmark/core` checks the tool, its
 * fingerprint, the caller and the expiry again); the server keeps the list, per user.
 */
export interface StoredGrant {
  id: string
  userId: string
  tool: string
  title?: string
  /** The tool's fingerprint when it was approved (`toolFingerprint` of `@toolmark/core/grants`). */
  fingerprint: string
  caller: 'inapp' | 'webmcp' | 'mcp' | 'tour' | 'test'
  /** Set for a grant for one conversation (one of the user's). */
  conversationId?: string
  createdAt: number
  /** Epoch ms when it ends; set unless the grant is for one conversation. */
  expiresAt?: number
}

/**
 * Persistence behind the server. Every method returns a promise, so a store may live in this process
 * (memory, SQLite) or behind a network (PostgreSQL); the single-use transitions (`settleCall`,
 * `settleConfirm`, `expireConfirms`) are atomic compare-and-set updates, so two server instances
 * settling the same id see exactly one success between them.
 */
export interface Store {
  /** Returns the named secret, creating it with `create()` the first time. */
  secret(name: string, create: () => string): Promise<string>
  createUser(): Promise<User>
  /** Records a user the app identified itself (`authenticate`), unless the store knows them already. */
  ensureUser(id: string): Promise<void>
  createSession(userId: string): Promise<Session>
  getSession(id: string): Promise<Session | undefined>
  /** Records that the session was used at `at` (epoch ms). */
  touchSession(id: string, at: number): Promise<void>
  /**
   * Removes sessions last used at or before `idleBefore`, then the least recently used beyond the newest
   * `keep`, and with them every user left without a session and all of that user's data
   * (conversations, messages, bindings, manifests). Returns how many sessions were removed.
   */
  pruneSessions(idleBefore: number, keep: number): Promise<number>
  countSessions(): Promise<number>
  /**
   * How many conversations `userId` has. Optional: without it the server's `maxConversationsPerUser` cap is not
   * enforced.
   */
  countConversations?(userId: string): Promise<number>
  createConversation(userId: string): Promise<Conversation>
  getConversation(id: string): Promise<Conversation | undefined>
  /** The page load the conversation's future calls go to (a full reload or new tab rebinds it). */
  setActiveClient(conversationId: string, clientId: string): Promise<void>
  getActiveClient(conversationId: string): Promise<string | undefined>
  addMessage(message: StoredMessage): Promise<void>
  listMessages(conversationId: string): Promise<StoredMessage[]>
  /**
   * Replaces a stored message's text and agent entry, and its tool part when `part` is given (a later, stricter
   * masking of the same message).
   */
  updateMessage(id: string, text: string, agent: AgentMessage | undefined, part?: ToolPart): Promise<void>
  insertCall(binding: CallBinding): Promise<void>
  /**
   * Binds a call only while it may still go where it names, checked in the statement that inserts it: the
   * conversation exists, belongs to `binding.userId`, and its active page load is `binding.clientId`. True when
   * bound; false (nothing stored) when the conversation is bound to another page load, or to none. Optional:
   * without it the relay reads the active page load, then inserts.
   */
  bindCall?(binding: CallBinding): Promise<boolean>
  /**
   * Settles a call `answered` in one statement, only while it is pending, bound to `by` (user, conversation and
   * page load) and not past its deadline at `at` (epoch ms; a result at the deadline itself is in time), and
   * returns the settled binding. Undefined when any of that fails (nothing changed): the caller reads the call
   * to tell why. Optional: without it the relay reads the call, checks it, then settles it.
   */
  answerCall?(id: string, by: Answerer, at: number): Promise<CallBinding | undefined>
  getCall(id: string): Promise<CallBinding | undefined>
  /** Moves a call from `pending` to `state`; false when it was not pending (single use). */
  settleCall(id: string, state: 'answered' | 'timed_out'): Promise<boolean>
  /** Marks every pending call timed out (after a restart nobody waits for them); returns how many. */
  timeOutPendingCalls(): Promise<number>
  /** Binds a confirmId; false when the confirmId is already bound (the first binding wins). */
  insertConfirm(binding: ConfirmBinding): Promise<boolean>
  getConfirm(confirmId: string): Promise<ConfirmBinding | undefined>
  /** Every confirmation binding of the conversation, in creation order. */
  listConfirms(conversationId: string): Promise<ConfirmBinding[]>
  /** Replaces a binding's summary (a later, stricter masking of the same summary). */
  updateConfirmSummary(confirmId: string, summary: string): Promise<void>
  /**
   * Moves a confirmation from `pending` to `state`; false when it was not pending, or (for `used`) when its
   * `expiresAt` is not after `at` (epoch ms, default the store's clock): one statement, so of two instances
   * settling the same confirmId at most one succeeds, and never after it expired.
   */
  settleConfirm(confirmId: string, state: 'used' | 'expired', at?: number): Promise<boolean>
  /** Expires the pending confirmIds of one page load in one conversation and returns them. */
  expireConfirms(conversationId: string, clientId: string): Promise<ConfirmBinding[]>
  /**
   * Stores a pending decision unless the agent call already has one (pending or closed): true when stored.
   * Optional, with {@link Store.closeDecision} and {@link Store.pendingDecisions}: a store without them never
   * asks a call again after a reload (its cards are lost with their page, as before).
   */
  openDecision?(decision: PendingDecision): Promise<boolean>
  /**
   * Closes the agent call's decision in one statement: from `pending`, or from nothing (a closed record is
   * stored, so a later {@link Store.openDecision} does nothing). False when it was closed already: of two
   * page loads answering the same decision at once, exactly one closes it.
   */
  closeDecision?(key: DecisionKey, state: 'decided' | 'dropped', at: number): Promise<boolean>
  /** The conversation's pending decisions, in creation order (those past `expiresAt` included). */
  pendingDecisions?(conversationId: string): Promise<PendingDecision[]>
  /**
   * Stores the page load's manifest unless one with a higher `rev` is already stored for its
   * clientId (messages can arrive out of order); true when it was stored.
   */
  putManifest(record: ManifestRecord): Promise<boolean>
  getManifest(clientId: string): Promise<ManifestRecord | undefined>
  /**
   * The conversation's active page load and its manifest in one read (`getActiveClient` then `getManifest`);
   * a store behind a network implements it to save a round trip. Optional: the relay falls back to the two.
   */
  getActivePage?(conversationId: string): Promise<ManifestRecord | undefined>
  /**
   * Stores the page load's readable context unless one with a higher `rev` is already stored for its clientId;
   * true when it was stored. Optional, with {@link Store.getPageContext}: without them the server does not take
   * the `context` extension. Pruning a user removes their page contexts.
   */
  putPageContext?(record: PageContextRecord): Promise<boolean>
  /** The latest readable context the page load sent, if any. */
  getPageContext?(clientId: string): Promise<PageContextRecord | undefined>
  /**
   * The user's grants that have not expired at `at` (epoch ms), newest first. Optional, with
   * {@link Store.putGrant} and {@link Store.revokeGrant}: without them the grants routes answer
   * `501 grants_unavailable`. Pruning a user removes their grants.
   */
  listGrants?(userId: string, at: number): Promise<StoredGrant[]>
  /** Stores a grant, replacing the user's grant for the same tool, caller and conversation (one statement or transaction). */
  putGrant?(grant: StoredGrant): Promise<void>
  /** Removes the user's grant `id`; false when the user has no such grant. */
  revokeGrant?(userId: string, id: string): Promise<boolean>
  /** Resolves when the database answers (the readiness check); a store without one is always ready. */
  ping?(): Promise<void>
  close(): Promise<void>
}

/*
 * The Store by aggregate: each store implementation builds one part per aggregate and joins them.
 */

/** Secrets, users and sessions. */
export type UserStore = Pick<
  Store,
  | 'secret'
  | 'createUser'
  | 'ensureUser'
  | 'createSession'
  | 'getSession'
  | 'touchSession'
  | 'pruneSessions'
  | 'countSessions'
>

/** Conversations and their messages. */
export type ConversationStore = Pick<
  Store,
  | 'countConversations'
  | 'createConversation'
  | 'getConversation'
  | 'setActiveClient'
  | 'getActiveClient'
  | 'addMessage'
  | 'listMessages'
  | 'updateMessage'
>

/** Call bindings: each call bound to the page load it was sent to, answered once. */
export type CallStore = Pick<
  Store,
  'insertCall' | 'bindCall' | 'answerCall' | 'getCall' | 'settleCall' | 'timeOutPendingCalls'
>

/** Confirmation bindings: the first binding wins, each is used once. */
export type ConfirmStore = Pick<
  Store,
  | 'insertConfirm'
  | 'getConfirm'
  | 'listConfirms'
  | 'updateConfirmSummary'
  | 'settleConfirm'
  | 'expireConfirms'
>

/** Pending decisions: the agent's calls waiting for the user, kept across reloads and restarts. */
export type DecisionStore = Pick<Store, 'openDecision' | 'closeDecision' | 'pendingDecisions'>

/** Each page load's manifest and page context (`getActivePage`: an optional fast path). */
export type PageStore = Pick<
  Store,
  'putManifest' | 'getManifest' | 'getActivePage' | 'putPageContext' | 'getPageContext'
>

/** A user's grants (optional: without them the grants routes answer 501). */
export type GrantStore = Pick<Store, 'listGrants' | 'putGrant' | 'revokeGrant'>

/**
 * What a store throws (rejects with) when its database cannot be reached: the server answers the request
 * `503 store_unavailable` (with `Retry-After`) instead of a 500, and nothing is half-written (every write is
 * one statement or one transaction). `cause` is the driver's error, for logs.
 */
export class StoreUnavailableError extends Error {
  constructor(message = 'The database is unavailable', options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}
