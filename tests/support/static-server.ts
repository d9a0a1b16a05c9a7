import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A file served by {@link startStaticServer}: a body, a function of the server's origin and query,
 * or a body with extra response headers (e.g. `Permissions-Policy`).
 */
export type StaticRoute =
  | string
  | ((origin: string, query: URLSearchParams) => string)
  | { body: string; headers: Record<string, string> }

export interface StaticServer {
  /** `http://127.0.0.1:<port>`: each server is its own origin. */
  origin: string
  close(): Promise<void>
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' }

/**
 * Serves fixed pages and scripts on a loopback port (port 0), with `Access-Control-Allow-Origin: *`
 * so sandboxed (opaque-origin) documents can load module scripts from it.
 */
export async function startStaticServer(routes: Record<string, StaticRoute>): Promise<StaticServer> {
  let origin = ''
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin)
    const route = routes[url.pathname]
    if (route === undefined) {
      res.writeHead(404).end()
      return
    }
    const ext = url.pathname.slice(url.pathname.lastIndexOf('.'))
    res.writeHead(200, {
      'Content-Type': `${TYPES[ext] ?? 'text/plain'}; charset=utf-8`,
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'no-store',
      ...(typeof route === 'object' ? route.headers : {}),
    })
    res.end(
      typeof route === 'string'
        ? route
        : typeof route === 'object'
          ? route.body
          : route(origin, url.searchParams),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
