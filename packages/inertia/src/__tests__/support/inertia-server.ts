import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * One route's answer: a page (component + props, status 200 unless `status` says otherwise), a
 * redirect, or a plain HTML document that is not an Inertia page (no `X-Inertia` header).
 */
export type InertiaRoute =
  | { component: string; props?: Record<string, unknown>; status?: number }
  | { redirect: string; status?: 302 | 303 }
  | { html: string; status?: number }

export interface InertiaTestServer {
  url: string
  /** Requests seen, in order (method, path, Inertia headers, body). */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>
  close(): Promise<void>
}

/**
 * A minimal Inertia protocol server for the router tests (test-only stand-in for a backend): JSON
 * page objects for `X-Inertia` requests with the `X-Inertia` response header, partial reloads
 * (`X-Inertia-Partial-Component` + `X-Inertia-Partial-Data` keep only the named props), and
 * redirects (303 after a POST, as Laravel's Inertia middleware answers).
 */
export async function startInertiaServer(
  routes: Record<string, InertiaRoute | ((method: string) => InertiaRoute | Promise<InertiaRoute>)>,
  shared: () => Record<string, unknown> = () => ({}),
): Promise<InertiaTestServer> {
  const requests: InertiaTestServer['requests'] = []
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    let body = ''
    for await (const chunk of req) body += String(chunk)
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      headers: req.headers,
      body,
    })
    const entry = routes[url.pathname]
    const route = typeof entry === 'function' ? await entry(req.method ?? 'GET') : entry
    if (!route) return void res.writeHead(404).end()
    if ('redirect' in route) {
      return void res
        .writeHead(route.status ?? (req.method === 'GET' ? 302 : 303), { Location: route.redirect })
        .end()
    }
    if ('html' in route) {
      res.writeHead(route.status ?? 200, { 'Content-Type': 'text/html' })
      return void res.end(route.html)
    }
    let props: Record<string, unknown> = { errors: {}, ...shared(), ...route.props }
    const partial = req.headers['x-inertia-partial-component']
    const only = req.headers['x-inertia-partial-data']
    if (partial === route.component && typeof only === 'string') {
      const keep = new Set(only.split(','))
      props = Object.fromEntries(Object.entries(props).filter(([k]) => keep.has(k) || k === 'errors'))
    }
    const page = { component: route.component, props, url: url.pathname + url.search, version: '1' }
    if (req.headers['x-inertia'] === 'true') {
      res.writeHead(route.status ?? 200, {
        'Content-Type': 'application/json',
        'X-Inertia': 'true',
        Vary: 'X-Inertia',
      })
      return void res.end(JSON.stringify(page))
    }
    res.writeHead(route.status ?? 200, { 'Content-Type': 'text/html' })
    res.end(
      `<div id="app"></div><script data-page="app" type="application/json">${JSON.stringify(page)}</script>`,
    )
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve, reject) => {
        http.closeIdleConnections()
        http.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

/** Points happy-dom's page at `url` (same origin as the test server, so the router's XHR and the bridge's fetch are same-origin). */
export function setPageUrl(url: string): void {
  ;(window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(url)
}
