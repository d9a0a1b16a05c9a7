import type { ChatEvent, ConversationBody, CreatedBody } from '@toolmark/server/contract'

export type { ChatEvent, ChatMessage } from '@toolmark/server/contract'
/** The longest message the agent server accepts, in UTF-16 code units (like `maxlength`). */
export { MAX_MESSAGE_LENGTH } from '@toolmark/server/contract'

/** localStorage key of the current conversation id (a full reload keeps the conversation). */
export const CONVERSATION_KEY = 'toolmark-demo:conversation'

const json = { 'content-type': 'application/json', accept: 'application/json' }

/**
 * Why the server refused a request: its JSON `{ error: { code, message } }` (or an older
 * `{ error: "…" }`), else `fallback` with the HTTP status.
 */
export async function refusalReason(response: Response, fallback: string): Promise<string> {
  const status = `${fallback} (HTTP ${response.status})`
  let body: unknown
  try {
    body = await response.json()
  } catch {
    return status
  }
  const error = (body as { error?: unknown } | null)?.error
  const message = typeof error === 'string' ? error : (error as { message?: unknown } | null)?.message
  return typeof message === 'string' && message.trim() !== '' ? `${fallback}: ${message}` : status
}

async function createConversation(): Promise<string> {
  const response = await fetch('/api/conversations', {
    method: 'POST',
    headers: json,
    credentials: 'same-origin',
  })
  if (!response.ok) throw new Error(await refusalReason(response, 'Could not start a conversation'))
  const body = (await response.json()) as CreatedBody
  localStorage.setItem(CONVERSATION_KEY, body.id)
  return body.id
}

/**
 * The conversation to use: the one kept in localStorage when the server still knows it for this
 * session, else a new one.
 */
export async function ensureConversation(): Promise<ConversationBody> {
  const kept = localStorage.getItem(CONVERSATION_KEY)
  if (kept) {
    const existing = await fetchConversation(kept)
    if (existing) return existing
  }
  return { id: await createConversation(), messages: [] }
}

/** The conversation with its messages, or `undefined` when it is not this user's (404). */
export async function fetchConversation(id: string): Promise<ConversationBody | undefined> {
  const response = await fetch(`/api/conversations/${encodeURIComponent(id)}`, {
    headers: json,
    credentials: 'same-origin',
  })
  if (response.status === 404) return undefined
  if (!response.ok) throw new Error(await refusalReason(response, 'Could not load the conversation'))
  return (await response.json()) as ConversationBody
}

/** Posts a user message; the agent's turn runs on the server and streams back as events. */
export async function sendMessage(id: string, text: string): Promise<void> {
  const response = await fetch(`/api/conversations/${encodeURIComponent(id)}/messages`, {
    method: 'POST',
    headers: json,
    credentials: 'same-origin',
    body: JSON.stringify({ text }),
  })
  if (!response.ok) throw new Error(await refusalReason(response, 'Message not sent'))
}

/**
 * Listens to the conversation's event stream; returns a function that closes it. `onOpen` runs on every
 * (re)connection, so the caller can re-read what it may have missed.
 */
export function subscribeToConversation(
  id: string,
  onEvent: (event: ChatEvent) => void,
  onOpen?: () => void,
): () => void {
  const source = new EventSource(`/api/conversations/${encodeURIComponent(id)}/events`)
  if (onOpen) source.onopen = onOpen
  source.onmessage = (event: MessageEvent<string>) => {
    try {
      const parsed = JSON.parse(event.data) as ChatEvent
      if (parsed && (parsed.type === 'message' || parsed.type === 'busy')) onEvent(parsed)
    } catch {
      // Not JSON: ignore (comments and keep-alives).
    }
  }
  return () => source.close()
}
