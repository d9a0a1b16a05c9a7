/*
 * The chat contract between the agent server and a chat page, written once: the server's HTTP
 * routes and event stream produce these shapes, and the demo, its e2e harness and the Next demo
 * import them (`@toolmark-apps/agent-server/contract`; types and one constant, no Node APIs, safe
 * in a browser bundle). README, "HTTP and WebSocket", describes the routes.
 */

/** One chat line as the server stores and returns it. */
export interface ChatMessage {
  id: string
  role: 'user' | 'assistant' | 'tool'
  text: string
  /** The tool a `tool` line reports on. */
  tool?: string
  /** Epoch milliseconds. */
  at: number
}

/** One server-sent event of `GET /api/conversations/:id/events` (its `data`, as JSON). */
export type ChatEvent = { type: 'message'; message: ChatMessage } | { type: 'busy'; busy: boolean }

/** `POST /api/conversations` → 201, and `POST /api/conversations/:id/messages` → 202. */
export interface CreatedBody {
  id: string
}

/** `GET /api/conversations/:id`: the conversation's visible messages, oldest first. */
export interface ConversationBody {
  id: string
  messages: ChatMessage[]
}

/** `POST /api/conversations/:id/messages` request body. */
export interface MessageRequestBody {
  text: string
}

/** The JSON body of every 4xx answer: a stable `code` and a sentence a page can show as is. */
export interface ErrorBody {
  error: { code: string; message: string }
}

/** The longest message the server accepts, in UTF-16 code units (a page's `maxlength`). */
export const MAX_MESSAGE_LENGTH = 4000
