import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
}

/** A static server for a built app on 127.0.0.1 (a random port); unknown paths get index.html. */
export async function serveStatic(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const root = normalize(dir + sep)
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    let file = normalize(join(root, path))
    if (!file.startsWith(root) || path.endsWith('/')) file = join(root, 'index.html')
    try {
      const body = await readFile(file).catch(() => readFile(join(root, 'index.html')))
      const type = TYPES[extname(file)] ?? TYPES['.html']!
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body)
    } catch {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}
