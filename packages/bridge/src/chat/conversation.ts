/**
 * The chat API of `@toolmark/server` as the browser uses it: conversations, messages and the chat's event
 * stream. The shapes are the server's (`@toolmark/server/contract`), written here so this entry needs no
 * server package; a type test keeps the two the same.
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
  /** On a `tool` line of a page call: the call as the chat shows it, in the state this line records. */
  part?: ToolPart
}

/** The state of a page call the agent made. */
export type ToolPartState = 'running' | 'waiting' | 'done' | 'failed' | 'cancelled'

/** One page call the agent made, as the chat shows it (masked by the server). */
export interface ToolPart {
  /** The call's id, the same in every state of the call. */
  callId: string
  /** The page tool's name. */
  tool: string
  /** The tool's title from the page's manifest, when it has one. */
  title?: string
  /** A short, masked rendering of the call's input. */
  input: string
  /** `running` until the page answers; `waiting` while it waits for the user's confirmation. */
  state: ToolPartState
  /** The outcome in a few words. */
  summary?: string
  /** While `waiting`: the page's confirmation id (its card). */
  confirmId?: string
  /** While `running`: how far the tool has come, when the page reports it (see {@link ToolProgressEvent}). */
  progress?: ToolProgress
}

/** How far a running page call has come: a fraction from 0 to 1 and/or a short message (masked). */
export interface ToolProgress {
  fraction?: number
  message?: string
}

/**
 * A running page call reported progress (pages with the bridge's `progress` extension). It updates the part
 * of `callId` while that part is `running`; it is not stored, and the next `tool` event replaces it.
 */
export interface ToolProgressEvent {
  type: 'tool-progress'
  callId: string
  progress: ToolProgress
}

/** Assistant text as it streams; the `message` event with the same id ends it with the whole text. */
export interface TextDeltaEvent {
  type: 'text-delta'
  messageId: string
  delta: string
}

/** A page call started or changed state; the latest part of a `callId` wins. */
export interface ToolEvent {
  type: 'tool'
  part: ToolPart
}

/** One event of the conversation's event stream (its `data`, as JSON). */
export type ChatEvent =
  | { type: 'message'; message: ChatMessage }
  | { type: 'busy'; busy: boolean }
  | TextDeltaEvent
  | ToolEvent
  | ToolProgressEvent

const EVENT_TYPES = new Set(['message', 'busy', 'text-delta', 'tool', 'tool-progress'])

/** A conversation with its visible messages, oldest first (`GET /api/conversations/:id`). */
export interface ConversationBody {
  id: string
  messages: ChatMessage[]
}

/** The longest message the server accepts, in UTF-16 code units (the message field's `maxLength`). */
export const MAX_MESSAGE_LENGTH = 4000

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
