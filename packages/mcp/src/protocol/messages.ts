import type { FieldChange, Issue, ToolManifest, ToolResult } from '@toolmark/protocol'

/** Version of the page ↔ relay pairing messages: the page's `hello` carries it as `v`. */
export const PAIRING_PROTOCOL = 1 as const

/** Largest message either end accepts: UTF-16 code units of its JSON text (4 × 1048576). */
export const MAX_PAIRING_MESSAGE = 4 * 1_048_576

/** Deepest object/array nesting either end accepts in a message; the message itself is depth 1. */
export const MAX_PAIRING_DEPTH = 64

/** Longest accepted call id, tab id or resume token, in characters. */
export const MAX_PAIRING_ID = 256

/** Page → relay: the first message on a socket, with the tab's resume token when it has one. */
export interface HelloMessage {
  type: 'hello'
  v: typeof PAIRING_PROTOCOL
  resume?: string
}

/** Page → relay: the tools the page offers to caller `mcp`, sent once paired and on every revision. */
export interface PairingManifestMessage {
  type: 'manifest'
  rev: number
  tools: ToolManifest[]
  /** The page's title when it was sent (at most 256 characters): how the user tells tabs apart. */
  title?: string
}

/** Most context entries a `context` message carries. */
export const MAX_PAIRING_CONTEXT = 64

/** Most prompts a `prompts` message carries. */
export const MAX_PAIRING_PROMPTS = 64

/** Longest prompt text, in characters. */
export const MAX_PROMPT_TEXT = 16_384

/** One readable context entry as the page sends it: masked, JSON only. */
export interface PairingContextEntry {
  /** Full name, as a tool's (`orders.current`). */
  name: string
  /** At most 256 characters. */
  title?: string
  /** At most 4096 characters. */
  description: string
  /** The masked value (at most 16384 characters of JSON: the relay refuses a larger one). */
  value: unknown
  /** The page's context revision at which the entry last changed. */
  rev: number
}

/**
 * Page → relay: the readable context entries visible to caller `mcp` (at most 64), sent once paired
 * and whenever one is added, removed or changed. Each message replaces the previous list.
 */
export interface PairingContextMessage {
  type: 'context'
  /** The page's context revision. */
  rev: number
  entries: PairingContextEntry[]
}

/** One argument of a prompt: always a string the client supplies. */
export interface PairingPromptArgument {
  /** `^[A-Za-z0-9_]{1,64}$`: `{{name}}` in the text is replaced by its value. */
  name: string
  /** At most 1024 characters. */
  description?: string
  required?: boolean
}

/** A prompt the page offers: a template the relay fills in for `prompts/get`. */
export interface PairingPrompt {
  /** `^[A-Za-z0-9_.-]{1,64}$`. */
  name: string
  /** At most 256 characters. */
  title?: string
  /** At most 4096 characters. */
  description?: string
  /** At most 16 arguments. */
  arguments?: PairingPromptArgument[]
  /**
   * The user message, at most 16384 characters: `{{arg}}` becomes that argument's value (empty
   * when not given) and `{{context.<name>}}` that context entry's masked value as JSON (`null` when
   * there is none), in one pass.
   */
  text: string
}

/** Page → relay: the prompts the page offers (at most 64), sent once paired; each replaces the list. */
export interface PairingPromptsMessage {
  type: 'prompts'
  prompts: PairingPrompt[]
}

/** Page → relay: the one answer to a `call`. */
export interface PairingResultMessage {
  type: 'result'
  /** The call's id. */
  id: string
  result: ToolResult
}

/**
 * Page → relay: how far a call in flight has come (its tool's `ctx.progress`), at most one per call every
 * 250 ms. The relay passes it to the client as MCP progress when the request asked for it.
 */
export interface PairingProgressMessage {
  type: 'progress'
  /** The call's id. */
  id: string
  /** From 0 to 1. */
  fraction?: number
  /** At most 200 characters. */
  message?: string
}

/** Relay → page: show this one-time code; the user gives it to the desktop client before `expiresAt`. */
export interface PairingCodeMessage {
  type: 'pairing'
  /** Eight digits as `1234-5678`. */
  code: string
  /** Epoch milliseconds. */
  expiresAt: number
}

/** Relay → page: the user confirmed the code; `resume` re-pairs the tab after a reload (when allowed). */
export interface PairedMessage {
  type: 'paired'
  /** The tab id (`t1`, `t2`, …): the prefix of the tab's tool names. */
  tab: string
  resume?: string
}

/**
 * Page → relay: ask the MCP client to confirm a call in flight (`id`), when the relay said the client
 * can (`call.elicit`). The content is the card's. The relay answers once with `confirmed`.
 */
export interface PairingConfirmMessage {
  type: 'confirm'
  /** The call's id. */
  id: string
  /** The confirmation's id: the `confirmed` answer names it. */
  confirmId: string
  /** Full tool name. */
  tool: string
  title?: string
  summary: string
  /** What the action targets (the call's string `name` argument). */
  target?: string
  /** True for destructive tools: the prompt says "This action cannot be undone." unless `undoable`. */
  destructive: boolean
  undoable?: true
  /** Redacted field changes. */
  changes: FieldChange[]
  /** Epoch milliseconds after which the page refuses an approval. */
  expiresAt: number
  /** Top-level input values the user may edit in the prompt (never a sensitive one). */
  fields?: { [key: string]: string | number | boolean }
  /** What to fix in the previous edit: the page asks again with these. */
  issues?: Issue[]
}

/** Relay → page: the MCP client's answer to a `confirm`, sent once. */
export interface PairingConfirmedMessage {
  type: 'confirmed'
  confirmId: string
  approved: boolean
  /** The fields the user changed (only when approved). */
  input?: { [key: string]: string | number | boolean }
  /**
   * Why not approved: `declined` or `cancelled` by the user, `expired` (no answer in time) or
   * `unavailable` (the client could not ask: the page shows its own card instead).
   */
  reason?: 'declined' | 'cancelled' | 'expired' | 'unavailable'
}

/** The MCP client as it declared itself in `initialize`: a claim, never an authentication. */
export interface PairingClient {
  name: string
  version?: string
}

/** Relay → page: run a tool as caller `mcp`. */
export interface PairingCallMessage {
  type: 'call'
  id: string
  /** Full tool name. */
  tool: string
  /** The MCP client's arguments: always a JSON object. */
  input: { [key: string]: unknown }
  /** The manifest revision the relay listed the tool from. */
  rev?: number
  /** The client's trace context, passed to the call's `meta`. */
  meta?: { traceparent?: string; tracestate?: string }
  /** The MCP client that asked (its declared name and version). */
  client?: PairingClient
  /** Present when the client can confirm in its own UI: the page may send `confirm` for this call. */
  elicit?: true
}

/** Relay → page: abort the in-flight call with this id. Never answered itself. */
export interface PairingCancelMessage {
  type: 'cancel'
  id: string
}

/** Relay → page: the relay refused this page (code expired, too many wrong codes); it closes next. */
export interface PairingErrorMessage {
  type: 'error'
  message: string
}

/** Every message a page sends to the relay. */
export type PageToRelay =
  | HelloMessage
  | PairingManifestMessage
  | PairingResultMessage
  | PairingProgressMessage
  | PairingConfirmMessage
  | PairingContextMessage
  | PairingPromptsMessage

/** Every message the relay sends to a page. */
export type RelayToPage =
  | PairingCodeMessage
  | PairedMessage
  | PairingCallMessage
  | PairingCancelMessage
  | PairingErrorMessage
  | PairingConfirmedMessage

/** Which way a pairing message travels: `'toRelay'` (page → relay) or `'toPage'` (relay → page). */
export type PairingDirection = 'toRelay' | 'toPage'
