import type {
  CallBinding,
  ConfirmBinding,
  Conversation,
  ManifestRecord,
  PendingDecision,
  Session,
  StoredMessage,
} from './store.ts'

/*
 * The SQLite rows behind each record and the mappers both ways: snake_case columns, 0/1 for
 * booleans, JSON text for structured values, NULL for absent optional fields.
 */

export interface SessionRow {
  id: string
  user_id: string
  created_at: number
  last_seen_at: number
}

export interface ConversationRow {
  id: string
  user_id: string
  created_at: number
}

export interface MessageRow {
  id: string
  conversation_id: string
  role: StoredMessage['role']
  text: string
  tool: string | null
  at: number
  visible: number
  agent: string | null
  part: string | null
}

export interface CallRow {
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

export interface ConfirmRow {
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
  expires_at: number | null
}

export interface DecisionRow {
  conversation_id: string
  tool_call_id: string
  user_id: string
  tool: string
  input: string | null
  entry: string
  created_at: number
  expires_at: number
  state: PendingDecision['state']
}

export interface ManifestRow {
  client_id: string
  user_id: string
  conversation_id: string
  rev: number
  tools: string
  updated_at: number
}

export const toSession = (r: SessionRow): Session => ({
  id: r.id,
  userId: r.user_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
})

export const toConversation = (r: ConversationRow): Conversation => ({
  id: r.id,
  userId: r.user_id,
  createdAt: r.created_at,
})

export const toMessage = (r: MessageRow): StoredMessage => {
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
  if (r.part !== null) message.part = JSON.parse(r.part)
  return message
}

export const messageRow = (m: StoredMessage): MessageRow => ({
  id: m.id,
  conversation_id: m.conversationId,
  role: m.role,
  text: m.text,
  tool: m.tool ?? null,
  at: m.at,
  visible: m.visible ? 1 : 0,
  agent: m.agent === undefined ? null : JSON.stringify(m.agent),
  part: m.part === undefined ? null : JSON.stringify(m.part),
})

export const toCall = (r: CallRow): CallBinding => ({
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

export const callRow = (b: CallBinding): CallRow => ({
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

export const toDecision = (r: DecisionRow): PendingDecision => ({
  userId: r.user_id,
  conversationId: r.conversation_id,
  toolCallId: r.tool_call_id,
  tool: r.tool,
  ...(r.input === null ? {} : { input: JSON.parse(r.input) as Record<string, unknown> }),
  entry: r.entry,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  state: r.state,
})

export const decisionRow = (d: PendingDecision): DecisionRow => ({
  conversation_id: d.conversationId,
  tool_call_id: d.toolCallId,
  user_id: d.userId,
  tool: d.tool,
  input: d.input === undefined ? null : JSON.stringify(d.input),
  entry: d.entry,
  created_at: d.createdAt,
  expires_at: d.expiresAt,
  state: d.state,
})

export const toConfirm = (r: ConfirmRow): ConfirmBinding => ({
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
  ...(r.expires_at === null ? {} : { expiresAt: r.expires_at }),
})

export const confirmRow = (b: ConfirmBinding): ConfirmRow => ({
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
  expires_at: b.expiresAt ?? null,
})

export const toManifest = (r: ManifestRow): ManifestRecord => ({
  clientId: r.client_id,
  userId: r.user_id,
  conversationId: r.conversation_id,
  rev: r.rev,
  tools: JSON.parse(r.tools),
  updatedAt: r.updated_at,
})

export const manifestRow = (m: ManifestRecord): ManifestRow => ({
  client_id: m.clientId,
  user_id: m.userId,
  conversation_id: m.conversationId,
  rev: m.rev,
  tools: JSON.stringify(m.tools),
  updated_at: m.updatedAt,
})
