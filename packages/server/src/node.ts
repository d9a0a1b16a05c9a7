/**
 * `@toolmark/server/node`: the parts that need Node's sockets. `serve` listens with
 * `@hono/node-server` and adds the bridge's WebSocket transport; `attachWebSocket` adds only the
 * socket to a Node HTTP server you already have (a custom Next.js server, for one).
 */

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { attachWebSocket as attach } from './http/ws.ts'
import type { ToolmarkServer } from './server.ts'

export { CLOSE_FORBIDDEN, CLOSE_TRY_AGAIN_LATER, CLOSE_UNAUTHENTICATED, WS_PATH } from './http/ws.ts'

/** Where {@link serve} listens. */
export interface ServeOptions {
  /** Port; 0 picks a free one. Default 8787. */
  port?: number
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string
  /** Where socket refusals are logged. Default `console.warn`. */
  log?: (line: string) => void
}

/** A listening server. */
export interface NodeServer {
  /** `http://host:port` */
  url: string
  /** The port it listens on (the one picked when `port` was 0). */
  port: number
  /** The Node HTTP server (to add routes or read its address). */
  http: Server
  /**
   * Drains (`/toolmark/ready` 503 for the server's `drainMs`), then stops accepting, closes sockets and
   * streams, settles pending calls. The store stays open.
   */
  close(): Promise<void>
}

/**
 * Serves `toolmark.fetch` over the bridge's WebSocket transport, `GET /toolmark/ws?conversation=:id`,
 * on `server`: `Host` and `Origin` are checked, then the user (the same `authenticate`, else the demo
 * cookie; close 4401), then the conversation must be that user's (close 4403). Returns its `close`.
 */
export function attachWebSocket(
  server: Server,
  toolmark: ToolmarkServer,
  options: { log?: (line: string) => void } = {},
): { close(): void } {
  return attach(server, {
    store: toolmark.store,
    relay: toolmark.relay,
    userOf: toolmark.userOf,
    allowedOrigins: toolmark.allowedOrigins,
    log: options.log,
  })
}

/** Listens on `options.host:options.port` with HTTP (`toolmark.fetch`) and the WebSocket transport. */
export async function serve(toolmark: ToolmarkServer, options: ServeOptions = {}): Promise<NodeServer> {
  const host = options.host ?? '127.0.0.1'
  const server = createAdaptorServer({ fetch: (request: Request) => toolmark.fetch(request) }) as Server
  const ws = attachWebSocket(server, toolmark, options.log ? { log: options.log } : {})
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? 8787, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    ws.close()
    throw error
  }
  const port = (server.address() as AddressInfo).port
  let closing: Promise<void> | undefined
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    http: server,
    close() {
      closing ??= (async () => {
        // `/toolmark/ready` answers 503 for `drainMs` while the sockets still serve; then they close.
        await toolmark.drain()
        ws.close()
        await toolmark.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
      })()
      return closing
    },
  }
}
