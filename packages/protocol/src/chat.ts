/*
 * The chat contract between an agent server and a chat page, written once: `@toolmark/server` and the
 * Laravel package produce these shapes on their conversation routes and event stream, and the bridge's
 * chat client (`@toolmark/bridge/chat`) and the framework adapters read them. Types and one constant.
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
  /**
   * On a `tool` line of a page call: the call as the chat shows it, in the state the line records (a call that
   * waited for the user has a second line, its `confirmed` outcome, with the same `callId`). Replaying the lines in
   * order, the last part of each `callId` is its current state.
   */
  part?: ToolPart
}

/** The state of a page call the agent made, as the chat shows it. */
export type ToolPartState = 'running' | 'waiting' | 'done' | 'failed' | 'cancelled'

/** One page call the agent made, as the chat shows it (masked: no sensitive value is ever in it). */
export interface ToolPart {
  /** The call's id (the model's tool-call id), the same in every state of the call. */
  callId: string
  /** The page tool's name. */
  tool: string
  /** The tool's title from the page's manifest, when it has one. */
  title?: string
  /** A short rendering of the call's input, masked like everything the server keeps. */
  input: string
  /** `running` until the page answers; `waiting` while it waits for the user's confirmation. */
  state: ToolPartState
  /** The outcome in a few words (`3 results`, the confirmation's summary, the refusal's code). */
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

/**
 * Assistant text as it streams, masked. Deltas of one `messageId` add up to the message so far; the `message`
 * event with the same `message.id` ends it with the whole, final text (which wins over the deltas). A stream
 * opened mid-message first gets one delta carrying the text so far.
 */
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

/** One server-sent event of `GET /api/conversations/:id/events` (its `data`, as JSON). */
export type ChatEvent =
  | { type: 'message'; message: ChatMessage }
  | { type: 'busy'; busy: boolean }
  | TextDeltaEvent
  | ToolEvent
  | ToolProgressEvent

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
