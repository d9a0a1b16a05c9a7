import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'
import { serve } from '@hono/node-server'
import { OfflineProvider } from '@toolmark/offline-agent'
import { createToolmarkServer, type ToolmarkServer } from '@toolmark/server'
import { uiMessageStreamHandler } from '@toolmark/server/ui-stream'

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }

/** The example's server: Toolmark with the offline agent, `POST /api/chat` for useChat, and the built page. */
export interface UseChatServer {
  url: string
  server: ToolmarkServer
  close(): Promise<void>
}

/** Starts the server on `host:port` (0: any free port), serving `staticDir` when given. */
export async function startUseChatServer(options: {
  port?: number
  host?: string
  staticDir?: string
}): Promise<UseChatServer> {
  const staticDir = options.staticDir
  const server = createToolmarkServer({
    provider: new OfflineProvider(),
    fallback: async (request) => {
      if (!staticDir) return new Response('Not found', { status: 404 })
      const path = normalize(new URL(request.url).pathname).replace(/^(\.\.[/\\])+/, '')
      const file = join(staticDir, path === '/' ? 'index.html' : path)
      const body = await readFile(file).catch(() => readFile(join(staticDir, 'index.html')))
      const type = TYPES[extname(file)] ?? 'text/html'
      return new Response(new Uint8Array(body), { headers: { 'content-type': type } })
    },
  })
  const chat = uiMessageStreamHandler(server)
  const fetch = (request: Request) =>
    new URL(request.url).pathname === '/api/chat' ? chat(request) : server.fetch(request)
  const http = serve({ fetch, port: options.port ?? 8788, hostname: options.host ?? '127.0.0.1' })
  await new Promise<void>((resolve) => http.once('listening', () => resolve()))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    async close() {
      await server.close()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = await startUseChatServer({ port: Number(process.env.PORT ?? 8788) })
  console.info(`[usechat] ${started.url} (run \`pnpm dev\` for the page)`)
}
