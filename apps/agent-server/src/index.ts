/**
 * What other workspaces import from the demo's agent server (`@toolmark-apps/agent-server`): start it
 * whole with the demo's configuration (`startServer`). The server itself is `@toolmark/server`.
 */

export { OfflineProvider } from '@toolmark/offline-agent'
export { createProvider } from './agent/providers/index.ts'
export { type Config, loadConfig } from './config.ts'
export { type RunningServer, type StartOptions, startServer, staticSite } from './server.ts'
