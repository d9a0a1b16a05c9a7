import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { originAllowlist } from './relay/origins.ts'
import { Pairing } from './relay/pairing.ts'
import { createMcpServer } from './relay/server.ts'
import { openSocket } from './relay/socket.ts'
import { Tabs } from './relay/tabs.ts'

export { mcpResult } from './relay/results.ts'
export { PAIR_TOOL } from './relay/server.ts'

/** What `startRelay` needs. */
export interface RelayOptions {
  /**
   * Exact page origins (`scheme://host[:port]`) allowed to connect. Required and never `*`: any open
   * site could otherwise offer tools to the desktop agent.
   */
  allowedOrigins: readonly string[]
  /** Loopback port for pages (always bound on 127.0.0.1). Default 17333; 0 picks a free one. */
  port?: number
  /** How long a relayed call may take, confirmation included. Default 300000 (5 minutes). */
  callTimeoutMs?: number
  /** How long a pairing code is valid. Default 120000 (2 minutes). */
  pairingTtlMs?: number
  /** Log lines (never secrets: no codes, tokens or tool data). Default: stderr. */
  log?: (line: string) => void
}

/** A running relay: the MCP `Server` (connect it to a transport) and the pages' WebSocket. */
export interface Relay {
  readonly server: Server
  /** The port pages connect to (`ws://127.0.0.1:<port>`). */
  readonly port: number
  close(): Promise<void>
}

/** The default loopback port pages connect to. */
export const DEFAULT_PORT = 17333

/**
 * Starts the relay: an MCP server whose tools are those of the paired pages, and a loopback
 * WebSocket for the pages. A page pairs only after the user confirms its one-time code in the MCP
 * client (tool `toolmark_pair`); the WebSocket upgrade checks `Origin` against an exact allowlist and
 * `Host` against loopback names (DNS rebinding). It only composes: the tabs (relay/tabs.ts), the
 * pairing (relay/pairing.ts), the MCP server (relay/server.ts) and the socket (relay/socket.ts).
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const allowed = originAllowlist(options.allowedOrigins)
  const log = options.log ?? ((line: string) => process.stderr.write(`[toolmark-mcp] ${line}\n`))
  const tabs: Tabs = new Tabs({
    callTimeoutMs: options.callTimeoutMs ?? 300_000,
    onChange: () => mcp.listChanged(),
    confirm: (tab, msg, signal) => mcp.confirm(tab, msg, signal),
  })
  const pairing = new Pairing(tabs, { ttlMs: options.pairingTtlMs ?? 120_000, log })
  const mcp = createMcpServer(tabs, pairing, log)
  const socket = await openSocket({ port: options.port ?? DEFAULT_PORT, allowed, tabs, pairing, log })
  return {
    server: mcp.server,
    port: socket.port,
    close: async () => {
      await socket.close()
      await mcp.server.close()
    },
  }
}
