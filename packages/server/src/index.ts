/**
 * `@toolmark/server`: the server side of an in-app agent, Web-standard. `createToolmarkServer`
 * returns one `fetch(request)` serving the conversation API, the chat event stream and the bridge's
 * HTTP transport. This entry holds what an app calls: the server, its route handlers and options, and
 * the two ports it plugs in (`Store`, `Provider`).
 *
 * Other doors: the `Store` port's records, `createMemoryStore` and `StoreUnavailableError` in
 * `@toolmark/server/store`; the manual clock in `@toolmark/server/testing`; Node's WebSocket transport in
 * `@toolmark/server/node`; the SQLite and PostgreSQL stores in `/sqlite` and `/postgres`; shared mode in
 * `/redis`; model providers in `/anthropic`, `/openai` and `/ai-sdk`; the chat API's types in `/contract`.
 */

export type {
  AgentMessage,
  LlmTool,
  Provider,
  ProviderEvent,
  ProviderRequest,
  ToolCall,
} from '@toolmark/protocol'
export type { ConversationEvents } from './agent/events.ts'
export { type Agent, SYSTEM_PROMPT } from './agent/loop.ts'
export type { Authenticate, SessionCookieOptions } from './http/session.ts'
export type { Rejection, Relay } from './relay/relay.ts'
export {
  createToolmarkServer,
  type RouteHandler,
  routeHandlers,
  type ToolmarkServer,
  type ToolmarkServerOptions,
} from './server.ts'
export type { Store } from './store/store.ts'
