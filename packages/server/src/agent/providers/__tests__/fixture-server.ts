import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request the fixture server received. */
export interface Recorded {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The raw body text, exactly as sent. */
  raw: string
  body: Record<string, unknown>
}

/** A reply: a recorded SSE fixture (a file in ./fixtures) or a plain HTTP error. */
export type Reply = { fixture: string } | { status: number; body: string; headers?: Record<string, string> }

/** Reads a recorded wire-format fixture. */
export const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')

/**
 * A local HTTP server that speaks a provider's wire format: each POST gets the next reply, and SSE
 * fixtures are written in small chunks (cut mid-line and mid-character) to exercise stream parsing.
 */
export async function fixtureServer(replies: Reply[]): Promise<{
  url: string
  requests: Recorded[]
  close(): Promise<void>
}> {
  const requests: Recorded[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body: raw ? JSON.parse(raw) : {},
      })
      const reply = replies.shift()
      if (!reply) {
        res.writeHead(500).end('no more fixtures')
        return
      }
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body)
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const bytes = Buffer.from(fixture(reply.fixture), 'utf8')
      let offset = 0
      const pump = () => {
        if (offset >= bytes.length) return res.end()
        res.write(bytes.subarray(offset, offset + 37))
        offset += 37
        setImmediate(pump)
      }
      pump()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
