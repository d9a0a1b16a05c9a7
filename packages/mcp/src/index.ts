// "@toolmark/mcp": the desktop MCP relay, as a library (the CLI is `toolmark-mcp`). Node-only; the
// page side of the pairing is `@toolmark/mcp/page`, the messages between them `@toolmark/mcp/protocol`.
export { DEFAULT_PORT, mcpResult, PAIR_TOOL, type Relay, type RelayOptions, startRelay } from './relay.ts'
