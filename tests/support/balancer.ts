/**
 * A load balancer without sticky sessions for tests: one loopback port in front of several server instances,
 * each request (and each WebSocket upgrade) sent to the instance `route` names, with its headers as sent
 * (`Host` and `Origin` included, so the instances check them as they would behind a real balancer).
 * Responses stream through unbuffered (event streams included); a client that goes away ends its upstream
 * request, and a WebSocket is a byte pipe, so close codes and ping/pong pass through unchanged.
 */

import { createServer, request as upstreamRequest } from 'node:http'
import { connect, type Socket } from 'node:net'

/** What the balancer knows of a request when it picks an instance. */
export interface RoutedRequest {
  method: string
  /** The path with its query string. */
  path: string
  /** True for a WebSocket upgrade. */
  upgrade: boolean
}

/** A started balancer. */
export interface TestBalancer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /** Stops listening and cuts every connection it still relays. */
  close(): Promise<void>
}

/** Starts a balancer on a free loopback port; `route` returns the port of the instance for each request. */
export async function startBalancer(route: (request: RoutedRequest) => number): Promise<TestBalancer> {
  const pipes = new Set<Socket>()
  const server = createServer((req, res) => {
    const port = route({ method: req.method ?? 'GET', path: req.url ?? '/', upgrade: false })
    let answered = false
    const upstream = upstreamRequest(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: false },
      (answer) => {
        answered = true
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders)
        answer.pipe(res)
        // An instance that went away mid-answer cuts the client's answer too.
        answer.on('close', () => {
          if (!answer.complete) res.destroy()
        })
      },
    )
    // An instance may answer before it read the whole body (413 to an oversized POST) and reset the
    // connection while the body is still arriving: its answer still reaches the client, as behind nginx.
    upstream.on('error', () => {
      if (!answered) res.destroy()
    })
    // A client that went away (an aborted event stream) ends its request to the instance too.
    res.on('close', () => upstream.destroy())
    req.pipe(upstream)
  })
  server.on('upgrade', (req, socket: Socket, head: Buffer) => {
    const port = route({ method: req.method ?? 'GET', path: req.url ?? '/', upgrade: true })
    const upstream = connect(port, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`]
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
      if (head.length > 0) upstream.write(head)
      // Each side's end reaches the other (a WebSocket's closing handshake needs both halves).
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    for (const side of [socket, upstream]) {
      pipes.add(side)
      side.on('close', () => pipes.delete(side))
    }
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      for (const socket of pipes) socket.destroy()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}
