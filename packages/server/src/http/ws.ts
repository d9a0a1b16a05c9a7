import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { type WebSocket, WebSocketServer } from 'ws'
import { MAX_INBOUND_BYTES, type PageConnection, type Relay } from '../relay/relay.ts'
import { LimitExceeded } from '../shared/limits.ts'
import type { Conversation, Store } from '../store/store.ts'
import { checkOrigin, type OriginProblem } from './origin.ts'

/** The upgrade request as a Fetch `Request` (headers only), for `authenticate` and the session cookie. */
function asRequest(req: IncomingMessage, url: URL): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value)
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${url.pathname}${url.search}`, { headers })
}

/** The page's WebSocket path. */
export const WS_PATH = '/toolmark/ws'
/** Close code for a missing or invalid session (the page treats it as terminal). */
export const CLOSE_UNAUTHENTICATED = 4401
/** Close code for a conversation that is not the user's, or a cross-origin socket (terminal). */
export const CLOSE_FORBIDDEN = 4403
/**
 * Close code for a socket over its user's cap of page connections (`maxPageConnectionsPerUser`): the
 * WebSocket protocol's "try again later", on which the page's transport reconnects with backoff.
 */
export const CLOSE_TRY_AGAIN_LATER = 1013

const PING_MS = 30_000

export interface WsDeps {
  store: Store
  relay: Relay
  /** The request's user (the app's `authenticate`, else the demo session cookie), or undefined. */
  userOf: (request: Request) => Promise<string | undefined>
  /** Public origins allowed besides loopback names (see `checkOrigin`). */
  allowedOrigins?: readonly string[] | undefined
  /** Where refusals are logged. Default `console.warn`. */
  log?: ((line: string) => void) | undefined
}

/** Answers an upgrade to another path 404, like every 4xx of the server: a JSON `{ error: { code, message } }` body. */
function notFound(socket: Duplex): void {
  const body = JSON.stringify({ error: { code: 'not_found', message: 'No WebSocket at this path' } })
  socket.end(
    `HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

/** Most bytes a page socket may hold unsent (16 × the protocol's largest message): past it, the page is cut off. */
export const MAX_BUFFERED_BYTES = 16 * MAX_INBOUND_BYTES

/**
 * Serves `GET /toolmark/ws?conversation=:id` on `server`. The upgrade is completed and then,
 * before anything is relayed, `Host` and `Origin` are checked (else closed 4403), the socket is
 * authenticated (the app's `authenticate`, else the session cookie; else closed
 * 4401) and bound to the user's own conversation (else closed 4403; 1013 when the user is over
 * `maxPageConnectionsPerUser`), so the page's transport sees
 * a terminal close code instead of retrying a refused handshake. Binary frames are ignored;
 * a frame over {@link MAX_INBOUND_BYTES} (the protocol's 1 MiB) is rejected (`invalid`, `too large`) and
 * closes the socket (1009), so a socket never buffers more. A page that does not read what it is sent is cut off
 * once its socket holds {@link MAX_BUFFERED_BYTES} unsent. Dead sockets are found by ping.
 */
export function attachWebSocket(server: Server, deps: WsDeps): { close(): void } {
  const log = deps.log ?? ((line: string) => console.warn(line))
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_BYTES })
  const alive = new WeakMap<object, boolean>()

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname !== WS_PATH) return notFound(socket)
    // Host and Origin first (DNS rebinding), before the session or anything else is looked at.
    const problem = checkOrigin(req.headers.host, req.headers.origin, deps.allowedOrigins)
    // The cookie's signature is verified (asynchronously) before the upgrade completes, so the page
    // cannot send a frame before the socket's handlers are in place.
    const onError = () => socket.destroy()
    socket.on('error', onError)
    // The conversation is looked up before the upgrade completes too, for the same reason.
    const verified = problem
      ? Promise.resolve({ userId: undefined, conversation: undefined })
      : deps.userOf(asRequest(req, url)).then(async (userId) => ({
          userId,
          conversation: userId
            ? await deps.store.getConversation(url.searchParams.get('conversation') ?? '')
            : undefined,
        }))
    verified.then(
      ({ userId, conversation }) => {
        socket.off('error', onError)
        if (!socket.destroyed)
          wss.handleUpgrade(req, socket, head, (ws) => bind(ws, problem, userId, conversation))
      },
      () => socket.destroy(),
    )
  }

  const bind = (
    ws: WebSocket,
    problem: OriginProblem,
    userId: string | undefined,
    conversation: Conversation | undefined,
  ) => {
    let refuse: ((detail: string) => void) | undefined
    ws.on('error', (error: Error & { code?: string }) => {
      // `ws` stopped reading a frame over `maxPayload` and closes the socket with 1009.
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') refuse?.('too large')
    })
    if (problem)
      return ws.close(CLOSE_FORBIDDEN, problem === 'host' ? 'host not allowed' : 'cross-origin socket')
    if (!userId) return ws.close(CLOSE_UNAUTHENTICATED, 'no valid session')
    if (!conversation || conversation.userId !== userId) {
      return ws.close(CLOSE_FORBIDDEN, 'not your conversation')
    }
    let conn: PageConnection
    try {
      conn = deps.relay.connect(userId, conversation.id, (message) => {
        if (ws.readyState !== ws.OPEN) return
        // A page that does not read what it is sent is cut off before its socket holds more than this.
        if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
          log('[ws] page socket closed: it does not read what it is sent')
          return ws.terminate()
        }
        // The socket is the transport's edge: the message is serialized here, once.
        ws.send(JSON.stringify(message))
      })
    } catch (error) {
      // Over the user's cap of page connections: try again later (the page's transport reconnects with backoff).
      if (error instanceof LimitExceeded) return ws.close(CLOSE_TRY_AGAIN_LATER, error.code)
      throw error
    }
    refuse = (detail) => void conn.refuse(detail)
    alive.set(ws, true)
    ws.on('pong', () => alive.set(ws, true))
    ws.on('message', (data, isBinary) => {
      if (isBinary) return log('[ws] binary frame ignored')
      void conn.receive(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8'))
    })
    ws.on('close', () => conn.close())
  }
  server.on('upgrade', onUpgrade)

  const ping = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate()
        continue
      }
      alive.set(ws, false)
      ws.ping()
    }
  }, PING_MS)
  ping.unref()

  return {
    close() {
      clearInterval(ping)
      server.off('upgrade', onUpgrade)
      for (const ws of wss.clients) ws.terminate()
      wss.close()
    },
  }
}
