import type { Transport } from '@modelcontextprotocol/server'
import { serveStdio } from '@modelcontextprotocol/server/stdio'
import { InputRounds } from './relay/input.ts'
import { originAllowlist } from './relay/origins.ts'
import { Pairing } from './relay/pairing.ts'
import { PagePrompts } from './relay/prompts.ts'
import { ContextResources } from './relay/resources.ts'
import { createMcpServer, type McpConnection } from './relay/server.ts'
import { openSocket } from './relay/socket.ts'
import { Tabs } from './relay/tabs.ts'

export { contextUri } from './relay/resources.ts'
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

/** A running relay: serve MCP clients with `connect`; pages use its loopback WebSocket. */
export interface Relay {
  /**
   * Serves one MCP client on `transport` (stdio, in-memory, …) until it closes. The client's opening
   * picks the protocol: `initialize` serves the 2025 revisions (2025-11-25 and older), `server/discover`
   * or a first request carrying the 2026-07-28 `_meta` envelope serves 2026-07-28.
   */
  connect(transport: Transport): Promise<void>
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
 * pairing (relay/pairing.ts), one MCP server per connection and era (relay/server.ts, served by the
 * SDK's `serveStdio`), the 2026-07-28 confirmation rounds (relay/input.ts) and the socket
 * (relay/socket.ts).
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const allowed = originAllowlist(options.allowedOrigins)
  const log = options.log ?? ((line: string) => process.stderr.write(`[toolmark-mcp] ${line}\n`))
  const callTimeoutMs = options.callTimeoutMs ?? 300_000
  /** The MCP servers of the connected clients: each hears when the paired tools, context or prompts change. */
  const live = new Set<McpConnection>()
  const tabs: Tabs = new Tabs({
    callTimeoutMs,
    onChange: () => {
      for (const mcp of live) mcp.listChanged()
      // A closed tab's resources and prompts leave their lists.
      const paired = tabs.paired()
      resources.sync(paired)
      prompts.sync(paired)
    },
  })
  const pairing = new Pairing(tabs, { ttlMs: options.pairingTtlMs ?? 120_000, log })
  const resources = new ContextResources({
    listChanged: () => {
      for (const mcp of live) mcp.resourcesChanged()
    },
    updated: (uri) => {
      for (const mcp of live) mcp.resourceUpdated(uri)
    },
  })
  const prompts = new PagePrompts(() => {
    for (const mcp of live) mcp.promptsChanged()
  })
  // A confirmation round lives at most as long as its call.
  const rounds = new InputRounds(Math.ceil(callTimeoutMs / 1000))
  const shared = { tabs, pairing, log, rounds, resources, prompts }
  const socket = await openSocket({
    port: options.port ?? DEFAULT_PORT,
    allowed,
    tabs,
    pairing,
    log,
    offers: (tab, msg) => (msg.type === 'context' ? resources.update(tab, msg) : prompts.update(tab, msg)),
  })
  const handles = new Set<{ close(): Promise<void> }>()
  return {
    port: socket.port,
    connect: async (transport) => {
      const handle = serveStdio(
        ({ era }) => {
          const mcp = createMcpServer(shared, era)
          live.add(mcp)
          mcp.server.onclose = () => live.delete(mcp)
          return mcp.server
        },
        { transport, onerror: (err) => log(`mcp: ${err.message}`) },
      )
      handles.add(handle)
    },
    close: async () => {
      await socket.close()
      await Promise.all([...handles].map((h) => h.close()))
    },
  }
}
