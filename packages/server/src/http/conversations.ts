import type { Context, Hono } from 'hono'
import { type Agent, MAX_USER_TEXT, toChat } from '../agent/loop.ts'
import type { ConversationBody, CreatedBody } from '../shared/contract.ts'
import { LimitExceeded, MAX_CONVERSATIONS_PER_USER } from '../shared/limits.ts'
import type { Conversation, Store } from '../store/store.ts'
import { readJson } from './body.ts'
import { fail, tooMany, UNAUTHENTICATED } from './errors.ts'
import type { SessionEnv, Sessions } from './session.ts'

/** Largest request body accepted on the API, in bytes (a message is at most 4000 characters). */
export const MAX_BODY_BYTES = 64 * 1024

/** Most conversation rows the chat API keeps in memory (see {@link ownConversation}). */
const CONVERSATION_CACHE_SIZE = 10_000

/** The answer for a conversation that does not exist or is another user's. */
export const NOT_FOUND = { code: 'not_found', message: 'No such conversation' } as const

/** The request's user's own conversation `id`, or undefined (nobody signed in, unknown, another user's). */
export type Own = (c: Context<SessionEnv>, id: string) => Promise<Conversation | undefined>

/**
 * {@link Own} over `store`. A conversation's row never changes (it is only removed, with its user, when
 * that user's last session is pruned, and then no request carries that user any more): the rows read
 * are kept, the latest 10 000 of them, so the ownership check of each chat request reads the store once.
 */
export function ownConversation(store: Store): Own {
  const conversations = new Map<string, Conversation>()
  const conversationOf = async (id: string): Promise<Conversation | undefined> => {
    const kept = conversations.get(id)
    if (kept) return kept
    const conversation = await store.getConversation(id)
    if (conversation) {
      conversations.set(id, conversation)
      if (conversations.size > CONVERSATION_CACHE_SIZE)
        conversations.delete(conversations.keys().next().value!)
    }
    return conversation
  }
  return async (c, id) => {
    const userId = c.get('userId')
    const conversation = userId ? await conversationOf(id) : undefined
    return conversation && conversation.userId === userId ? conversation : undefined
  }
}

/** What the conversation routes need. */
export interface ConversationRoutesDeps {
  store: Store
  agent: Agent
  sessions: Sessions
  own: Own
  /** Most conversations one user may have (429 `too_many_conversations` past it). Default 1000. */
  maxConversationsPerUser?: number | undefined
}

/**
 * The conversation API of the demo contract: `POST /api/conversations` (201 `{ id }`; starts the demo
 * session when there is none; 401 when `authenticate` finds nobody; 429 past the user's cap),
 * `GET /api/conversations/:id` (the visible messages) and `POST /api/conversations/:id/messages`
 * (202 `{ id }`; 400, 413, 415 or 429 for a message refused). Another user's conversation is 404.
 */
export function conversationRoutes(app: Hono<SessionEnv>, deps: ConversationRoutesDeps): void {
  const { store, agent, own } = deps
  const maxConversations = deps.maxConversationsPerUser ?? MAX_CONVERSATIONS_PER_USER

  app.post('/api/conversations', async (c) => {
    const userId = await deps.sessions.owner(c)
    if (!userId) return fail(c, 401, UNAUTHENTICATED.code, UNAUTHENTICATED.message)
    // Past the user's cap, for a store that counts them.
    if (store.countConversations && (await store.countConversations(userId)) >= maxConversations) {
      const message = `Too many conversations: at most ${maxConversations} per user`
      return tooMany(c, new LimitExceeded('too_many_conversations', message))
    }
    return c.json({ id: (await store.createConversation(userId)).id } satisfies CreatedBody, 201)
  })

  app.get('/api/conversations/:id', async (c) => {
    const conversation = await own(c, c.req.param('id'))
    if (!conversation) return fail(c, 404, NOT_FOUND.code, NOT_FOUND.message)
    const messages = (await store.listMessages(conversation.id)).filter((m) => m.visible).map(toChat)
    return c.json({ id: conversation.id, messages } satisfies ConversationBody)
  })

  app.post('/api/conversations/:id/messages', async (c) => {
    const conversation = await own(c, c.req.param('id'))
    if (!conversation) return fail(c, 404, NOT_FOUND.code, NOT_FOUND.message)
    const text = await readMessage(c)
    if (text instanceof Response) return text
    try {
      return c.json({ id: (await agent.post(conversation, text)).id } satisfies CreatedBody, 202)
    } catch (error) {
      if (error instanceof LimitExceeded) return tooMany(c, error)
      throw error
    }
  })
}

/** The trimmed text of a message request, or the 4xx answer that refuses it. */
async function readMessage(c: Context): Promise<string | Response> {
  if (!c.req.header('content-type')?.startsWith('application/json')) {
    return fail(c, 415, 'unsupported_media_type', 'Send the message as application/json')
  }
  // Read up to MAX_BODY_BYTES and no further, whatever the request declares.
  const read = await readJson(c.req.raw, MAX_BODY_BYTES)
  if (!read.ok && read.reason === 'too_large')
    return fail(c, 413, 'body_too_large', `Request body over ${MAX_BODY_BYTES} bytes`)
  const body = read.ok ? read.value : undefined
  const text = typeof body === 'object' && body !== null ? (body as { text?: unknown }).text : undefined
  if (typeof text !== 'string') return fail(c, 400, 'invalid_body', 'Expected a JSON body { "text": "…" }')
  if (text.trim() === '') return fail(c, 400, 'empty_message', 'The message is empty')
  if (text.length > MAX_USER_TEXT) {
    const message = `The message is ${text.length} characters long; the limit is ${MAX_USER_TEXT}`
    return fail(c, 400, 'message_too_long', message)
  }
  return text.trim()
}
