import { OfflineProvider } from '@toolmark/offline-agent'
import { createToolmarkServer, type Provider, routeHandlers, type ToolmarkServer } from '@toolmark/server'
import { AnthropicProvider } from '@toolmark/server/anthropic'
import { OpenAiProvider } from '@toolmark/server/openai'

/**
 * The model behind the demo's agent, from the environment `next start` runs with: `PROVIDER`
 * (`embedded`, `anthropic`, `openai`, or `auto`, the default: a key picks its provider, no key the
 * embedded offline agent), `ANTHROPIC_API_KEY` / `ANTHROPIC_MODEL`, `OPENAI_API_KEY` /
 * `OPENAI_BASE_URL` / `OPENAI_MODEL`. The key stays on the server: nothing here reaches the page.
 */
function providerFrom(env: NodeJS.ProcessEnv): Provider {
  const requested = env.PROVIDER || 'auto'
  const anthropicKey = env.ANTHROPIC_API_KEY
  const openaiKey = env.OPENAI_API_KEY
  const name =
    requested === 'auto' ? (anthropicKey ? 'anthropic' : openaiKey ? 'openai' : 'embedded') : requested
  if (name === 'anthropic') {
    if (!anthropicKey) throw new Error('PROVIDER=anthropic needs ANTHROPIC_API_KEY')
    return new AnthropicProvider({ apiKey: anthropicKey, model: env.ANTHROPIC_MODEL || 'claude-sonnet-4-5' })
  }
  if (name === 'openai') {
    if (!openaiKey) throw new Error('PROVIDER=openai needs OPENAI_API_KEY')
    return new OpenAiProvider({
      apiKey: openaiKey,
      baseUrl: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
      model: env.OPENAI_MODEL || 'gpt-4o-mini',
    })
  }
  if (name !== 'embedded')
    throw new Error(`PROVIDER must be embedded, anthropic, openai or auto, got ${name}`)
  return new OfflineProvider({ chunkDelayMs: embeddedChunkDelay() })
}

const dataFile = process.env.DATA_FILE
// The SQLite store's module (and its native driver) is loaded only when `DATA_FILE` asks for it: without it, a
// machine whose better-sqlite3 build does not match its Node still runs the demo.
const sqlite = dataFile ? await import('@toolmark/server/sqlite') : undefined

function create(): ToolmarkServer {
  const deadline = Number(process.env.CALL_DEADLINE_MS)
  return createToolmarkServer({
    // With `DATA_FILE`, the SQLite store on that file: sessions, conversations, pending approvals and grants
    // outlive a restart. Without it, the in-memory default store: they live in this process only.
    ...(dataFile && sqlite ? { store: sqlite.openSqliteStore(dataFile) } : {}),
    provider: providerFrom(process.env),
    ...(Number.isInteger(deadline) && deadline > 0 ? { callDeadlineMs: deadline } : {}),
    ...(process.env.SESSION_SECRET ? { sessionSecret: process.env.SESSION_SECRET } : {}),
    ...(process.env.ALLOWED_ORIGINS
      ? { allowedOrigins: process.env.ALLOWED_ORIGINS.split(',').map((o) => o.trim()) }
      : {}),
  })
}

// One server per process, kept on globalThis: Next may evaluate this module once per route bundle
// (and again after a hot reload in `next dev`), and the relay's page connections, pending calls and
// the in-memory store must be the same object for `/api/*` and `/toolmark/*` requests alike.
const KEY = Symbol.for('@toolmark-apps/next-demo.server')
const slot = globalThis as { [KEY]?: ToolmarkServer }

/** The demo's one Toolmark server (conversation API, chat events, the bridge's SSE + POST transport). */
export const toolmark: ToolmarkServer = slot[KEY] ?? closedOnStop(create())
slot[KEY] = toolmark

/**
 * `next start` stops on SIGTERM (or Ctrl+C) once its open connections end, and a page's event stream does not
 * end by itself: closing the Toolmark server ends them (pending calls answered, streams closed), so a deploy or
 * a restart stops at once instead of waiting to be killed.
 */
function closedOnStop(server: ToolmarkServer): ToolmarkServer {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void server.close())
  return server
}

/**
 * `GET`, `POST` and `DELETE` of the route handlers `app/api/[...path]` and `app/toolmark/[...path]`
 * (`DELETE /api/grants/:id` revokes a remembered approval).
 */
export const { GET, POST, DELETE } = routeHandlers(toolmark)

/**
 * The pause between the chunks of the offline agent's reply (ms), so the chat shows it streaming:
 * `EMBEDDED_CHUNK_DELAY_MS`, default 80.
 */
function embeddedChunkDelay(): number {
  const ms = Number(process.env.EMBEDDED_CHUNK_DELAY_MS ?? 80)
  return Number.isFinite(ms) && ms >= 0 ? ms : 80
}
