/**
 * `@toolmark/server`: the server side of an in-app agent, Web-standard. `createToolmarkServer`
 * returns one `fetch(request)` serving the conversation API, the chat event stream and the bridge's
 * HTTP transport. Node's WebSocket transport is in `@toolmark/server/node`, the SQLite store in
 * `@toolmark/server/sqlite`, model providers in `@toolmark/server/anthropic` and `/openai`.
 */

export { ConversationEvents } from './agent/events.ts'
export { firstArray, toolLine } from './agent/lines.ts'
export { Agent, type AgentOptions, SYSTEM_PROMPT } from './agent/loop.ts'
export type {
  AgentMessage,
  LlmTool,
  Provider,
  ProviderEvent,
  ProviderRequest,
  ToolCall,
} from './agent/types.ts'
export {
  AUTHENTICATE_FAILED,
  type Authenticate,
  checkOrigin,
  isLoopbackName,
  type OriginProblem,
} from './http/app.ts'
export { EVENTS_PATH, MESSAGES_PATH, STREAM_HEADER } from './http/bridge-http.ts'
export { HEALTH_PATH, READY_PATH, STORE_UNAVAILABLE } from './http/health.ts'
export { SESSION_COOKIE, type SessionCookieOptions } from './http/session.ts'
export type { BroadcastMessage, Cluster, ClusterMessage } from './relay/cluster.ts'
export {
  COORDINATOR_UNAVAILABLE_RESULT,
  LOST_RESULT,
  MAX_INBOUND_BYTES,
  PAGE_CACHE_MS,
  type Rejection,
  Relay,
  type RelayOptions,
} from './relay/relay.ts'
export {
  createToolmarkServer,
  type RouteHandler,
  routeHandlers,
  type ToolmarkServer,
  type ToolmarkServerOptions,
} from './server.ts'
export { MAX_MANIFEST_CHARS, MAX_PROVIDER_TEXT } from './shared/bounds.ts'
export { type Clock, type ManualClock, manualClock, systemClock } from './shared/clock.ts'
export type * from './shared/contract.ts'
export { MAX_MESSAGE_LENGTH } from './shared/contract.ts'
export {
  type LimitCode,
  LimitExceeded,
  MAX_CHAT_STREAMS_PER_USER,
  MAX_CONVERSATIONS_PER_USER,
  MAX_PAGE_CONNECTIONS_PER_USER,
  MAX_QUEUED_TURNS_PER_USER,
} from './shared/limits.ts'
export { escapeForLog, logString } from './shared/log.ts'
export { MASKED, maskText, maskValue } from './shared/redact.ts'
export { createMemoryStore } from './store/memory.ts'
export type {
  Answerer,
  CallBinding,
  ConfirmBinding,
  Conversation,
  ManifestRecord,
  Session,
  Store,
  StoredMessage,
  User,
} from './store/store.ts'
export { StoreUnavailableError } from './store/store.ts'
