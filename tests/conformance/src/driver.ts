/*
 * What the runner needs from a server under test. A driver starts the server once (pointing its agent
 * loop at the scripted model), makes a fresh signed-in user with a conversation per scenario, and opens
 * page loads for it over the server's own page transport. Everything else the runner observes on the
 * wire (what pages receive, what the model is handed) or through these few reads.
 */

/** A server under test, started once and shared by every scenario. */
export interface Target {
  /** The name of its expected-failures file. */
  readonly name: string
  /** How long the server gives a page to answer a call, in ms (set by the driver at start). */
  readonly deadlineMs: number
  /** How many scenarios it plays at a time (each has its own users). */
  readonly concurrency: number
  /** Starts the server with its agent loop on the model at `modelUrl` (an OpenAI-compatible `…/v1`). */
  start(modelUrl: string): Promise<void>
  /** A new signed-in user with a new conversation. */
  user(): Promise<User>
  stop(): Promise<void>
}

/** One signed-in user and their conversation. */
export interface User {
  /** Types a chat message (starts an agent turn). */
  say(text: string): Promise<void>
  /** Opens a page load with this clientId on the server's page transport. */
  openPage(clientId: string): Promise<PageLink>
  /** The reasons the server rejected this conversation's page messages so far, in order. */
  rejections(): Promise<string[]>
  /** The conversation's chat lines as stored (user and assistant lines). */
  chat(): Promise<Array<{ role: string; text: string }>>
  /** Everything the server stored or logged since it started, as text (rows, keys, log lines). */
  stored(): Promise<string>
  /** Makes the server-side lifetime of this conversation's pending confirmations pass. */
  outliveConfirmations(): Promise<void>
  /** Follows the conversation's live chat events (as a chat UI does); resolves once they flow. */
  watchChat(): Promise<ChatWatch>
}

/** One `tool-progress` chat event: how far the model's tool call `callId` has come. */
export interface ChatProgress {
  callId: string
  progress: { fraction?: number; message?: string }
}

/** A conversation's live chat events, followed since {@link User.watchChat}. */
export interface ChatWatch {
  /** Every progress event the chat got so far, in order. */
  progress(): ChatProgress[]
  /** Stops following. */
  close(): Promise<void>
}

/** One page load's connection. */
export interface PageLink {
  /** Sends one message (JSON text); resolves once the server had it (a POST answered, a socket flushed). */
  send(text: string): Promise<void>
  /** Every message the server sends this page load's connection, as parsed JSON. */
  onMessage(handler: (message: unknown) => void): void
  /** The page load ends: the connection closes and, where the server has one, the page-gone signal is sent. */
  leave(): Promise<void>
  /** How often the server closed this page load's connection (0 where pages hold no connection of their own). */
  closedByServer(): number
}
