// "@toolmark/mcp": the desktop MCP relay, as a library (the CLI is `toolmark-mcp`).
export { DEFAULT_PORT, mcpResult, PAIR_TOOL, type Relay, type RelayOptions, startRelay } from './relay.ts'
