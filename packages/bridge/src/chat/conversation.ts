/**
 * The chat API of an agent server as the browser uses it: conversations, messages and the chat's event
 * stream. The shapes are the chat contract of `@toolmark/protocol`, which both servers produce.
 */

import type { ChatEvent, ConversationBody } from '@toolmark/protocol'

export type {
  ChatEvent,
  ChatMessage,
  ConversationBody,
  TextDeltaEvent,
  ToolEvent,
  ToolPart,
  ToolPartState,
  ToolProgress,
  ToolProgressEvent,
} from '@toolmark/protocol'
export { MAX_MESSAGE_LENGTH } from '@toolmark/protocol'

const EVENT_TYPES = new Set(['message', 'busy', 'text-delta', 'tool', 'tool-progress'])

/** The localStorage key {@link agentConversation} keeps the conversation id under by default. */
export const DEFAULT_CONVERSATION_KEY = 'toolmark:conversation'

/** Options of {@link agentConversation}. */
export interface AgentConversationOptions {
  /** Where the server's conversation API is mounted (`app/api/[...path]/route.ts`). Default `/api`. */
  api?: string
  /**
   * The localStorage key that keeps the conversation id across full reloads (the server rebinds it to the
   * new page). `false`: a new conversation on every page load. Default {@link DEFAULT_CONVERSATION_KEY}.
   */
  storageKey?: string | false
}

/** The tab's conversation with the server's agent, shared by the bridge's `connect` and the chat. */
export interface AgentConversation {
  /** Where the conversation API is mounted, without a trailing slash. */
  readonly api: string
  /**
   * The conversation with its messages: the kept one while the server still knows it for this user, else
   * a new one. Asked once and then shared by every caller; a failure is asked again on the next call.
   * Browser only: call it from an effect or an event, never while rendering on the server.
   */
  open(): Promise<ConversationBody>
  /** The conversation with its messages, or `undefined` when the server does not know it for this user. */
  load(id: string): Promise<ConversationBody | undefined>
  /** Posts a user message; the agent's turn runs on the server and streams back as events. */
  send(id: string, text: string): Promise<void>
  /**
   * Listens to the conversation's event stream; returns a function that closes it. `onOpen` runs on every
   * (re)connection, so the caller can read again what it may have missed.
   */
  subscribe(id: string, onEvent: (event: ChatEvent) => void, onOpen?: () => void): () => void
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }

/**
 * Why the server refused a request: its JSON `{ error: { code, message } }` (or `{ error: "…" }`), else
 * `fallback` with the HTTP status.
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

/** localStorage, or undefined where it is missing or refused (private mode, sandboxed frames). */
function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined
  } catch {
    return undefined
  }
}

/**
 * The tab's conversation with the agent of a `@toolmark/server` mounted at `api`. Creating it sends
 * nothing: the first {@link AgentConversation.open} does. Make one per tab (at module scope of a client
 * file, or once at boot) and hand it to both the bridge's `connect` and the chat.
 */
export function agentConversation(options: AgentConversationOptions = {}): AgentConversation {
  const api = (options.api ?? '/api').replace(/\/+$/, '')
  const key = options.storageKey ?? DEFAULT_CONVERSATION_KEY
  const url = (id: string, rest = '') => `${api}/conversations/${encodeURIComponent(id)}${rest}`
  let opening: Promise<ConversationBody> | undefined

  const load = async (id: string): Promise<ConversationBody | undefined> => {
    const response = await fetch(url(id), { headers: JSON_HEADERS, credentials: 'same-origin' })
    if (response.status === 404) return undefined
    if (!response.ok) throw new Error(await refusalReason(response, 'Could not load the conversation'))
    return (await response.json()) as ConversationBody
  }

  const create = async (): Promise<ConversationBody> => {
    const response = await fetch(`${api}/conversations`, {
      method: 'POST',
      headers: JSON_HEADERS,
      credentials: 'same-origin',
    })
    if (!response.ok) throw new Error(await refusalReason(response, 'Could not start a conversation'))
    const { id } = (await response.json()) as { id: string }
    if (key !== false) storage()?.setItem(key, id)
    return { id, messages: [] }
  }

  const kept = async (): Promise<ConversationBody> => {
    const id = key === false ? null : (storage()?.getItem(key) ?? null)
    return (id ? await load(id) : undefined) ?? (await create())
  }

  return {
    api,
    open() {
      if (!opening) {
        const attempt = kept()
        opening = attempt
        attempt.catch(() => {
          if (opening === attempt) opening = undefined
        })
      }
      return opening
    },
    load,
    async send(id, text) {
      const response = await fetch(url(id, '/messages'), {
        method: 'POST',
        headers: JSON_HEADERS,
        credentials: 'same-origin',
        body: JSON.stringify({ text }),
      })
      if (!response.ok) throw new Error(await refusalReason(response, 'Message not sent'))
    },
    subscribe(id, onEvent, onOpen) {
      const source = new EventSource(url(id, '/events'))
      if (onOpen) source.onopen = onOpen
      source.onmessage = (event: MessageEvent<string>) => {
        let parsed: ChatEvent
        try {
          parsed = JSON.parse(event.data) as ChatEvent
        } catch {
          return // not JSON: a comment or a keep-alive
        }
        if (EVENT_TYPES.has(parsed?.type)) onEvent(parsed)
      }
      return () => source.close()
    },
  }
}
