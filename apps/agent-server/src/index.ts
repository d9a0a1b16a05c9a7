/**
 * What other workspaces import from the reference server (`@toolmark-apps/agent-server`): start it
 * whole (`startServer`), or compose its parts beside another server (the Next demo does).
 */

export { ConversationEvents } from './agent/events.ts'
export { Agent } from './agent/loop.ts'
export { createProvider } from './agent/providers/index.ts'
export type { Provider, ProviderEvent, ProviderRequest } from './agent/types.ts'
export { type Config, loadConfig } from './config.ts'
export { createApp } from './http/app.ts'
export { attachWebSocket, WS_PATH } from './http/ws.ts'
export { type Rejection, Relay } from './relay/relay.ts'
export { type RunningServer, type StartOptions, startServer } from './server.ts'
export type * from './shared/contract.ts'
export { openSqliteStore } from './store/sqlite.ts'
export type { Conversation, Store } from './store/store.ts'
