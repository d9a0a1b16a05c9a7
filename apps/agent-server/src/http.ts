import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import { streamSSE } from 'hono/streaming'
import { type Agent, MAX_USER_TEXT, toChat } from './agent/loop.ts'
import type { ConversationEvents } from './events.ts'
import { chatCompletions } from './openai-compat.ts'
import { SESSION_COOKIE, signSession, verifySession } from './session.ts'
import type { Store } from './store.ts'

export interface HttpDeps {
  store: Store
  agent: Agent
  events: ConversationEvents
  /** HMAC key of the session cookie. */
  secret: string
  /** Built demo assets; when it has no index.html a short "build the demo first" page is served. */
  staticDir: string
}

type Env = { Variables: { userId: string } }

/** Seconds between SSE keep-alive comments. */
const KEEP_ALIVE_MS = 15_000

/** True when a request's `Origin` (if any) is this server's own origin (CSRF defence for unsafe requests). */
export function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true
  try {
    return new URL(origin).host === host
  } catch {
    return false
  }
}

/**
 * The Hono app: the session cookie (signed, HttpOnly, SameSite=Lax; a demo user per new
 * session), the conversation API of the demo contract, server-sent chat events, and the demo's
 * static files with an SPA fallback.
 */
export function createApp(deps: HttpDeps): Hono<Env> {
  const { store, agent, events, secret, staticDir } = deps
  const app = new Hono<Env>()
  // The embedded planner as an OpenAI-compatible endpoint (no session: mounted before the session middleware).
  app.route('/', chatCompletions())

  app.use('*', async (c, next) => {
    const id = verifySession(getCookie(c, SESSION_COOKIE), secret)
    let session = id ? store.getSession(id) : undefined
    if (!session) {
      session = store.createSession(store.createUser().id)
      setCookie(c, SESSION_COOKIE, signSession(session.id, secret), {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
      })
    }
    c.set('userId', session.userId)
    if (
      c.req.method !== 'GET' &&
      c.req.method !== 'HEAD' &&
      !sameOrigin(c.req.header('origin'), c.req.header('host'))
    ) {
      return c.json({ error: 'cross-origin request refused' }, 403)
    }
    await next()
  })

  const own = (id: string, userId: string) => {
    const conversation = store.getConversation(id)
    return conversation && conversation.userId === userId ? conversation : undefined
  }

  app.post('/api/conversations', (c) => c.json({ id: store.createConversation(c.get('userId')).id }, 201))

  app.get('/api/conversations/:id', (c) => {
    const conversation = own(c.req.param('id'), c.get('userId'))
    if (!conversation) return c.json({ error: 'not found' }, 404)
    const messages = store
      .listMessages(conversation.id)
      .filter((m) => m.visible)
      .map(toChat)
    return c.json({ id: conversation.id, messages })
  })

  app.post('/api/conversations/:id/messages', async (c) => {
    const conversation = own(c.req.param('id'), c.get('userId'))
    if (!conversation) return c.json({ error: 'not found' }, 404)
    if (!c.req.header('content-type')?.startsWith('application/json')) {
      return c.json({ error: 'expected application/json' }, 415)
    }
    const body: unknown = await c.req.json().catch(() => undefined)
    const text = typeof body === 'object' && body !== null ? (body as { text?: unknown }).text : undefined
    if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_USER_TEXT) {
      return c.json({ error: `text must be a non-empty string of at most ${MAX_USER_TEXT} characters` }, 400)
    }
    return c.json({ id: agent.post(conversation, text.trim()).id }, 202)
  })

  app.get('/api/conversations/:id/events', (c) => {
    const conversation = own(c.req.param('id'), c.get('userId'))
    if (!conversation) return c.json({ error: 'not found' }, 404)
    return streamSSE(c, async (stream) => {
      let chain = Promise.resolve()
      const write = (data: unknown) => {
        chain = chain.then(() => stream.writeSSE({ data: JSON.stringify(data) })).catch(() => {})
      }
      const unsubscribe = events.subscribe(conversation.id, write)
      stream.onAbort(unsubscribe)
      write({ type: 'busy', busy: agent.busy(conversation.id) })
      while (!stream.aborted && !stream.closed) {
        await stream.sleep(KEEP_ALIVE_MS)
        chain = chain
          .then(() => stream.write(': keep-alive\n\n'))
          .then(
            () => {},
            () => {},
          )
      }
      unsubscribe()
    })
  })

  app.all('/api/*', (c) => c.json({ error: 'not found' }, 404))
  app.all('/toolmark/*', (c) => c.json({ error: 'not found' }, 404))

  const index = join(staticDir, 'index.html')
  if (existsSync(index)) {
    app.use('*', serveStatic({ root: staticDir }))
    app.get('*', (c) => c.html(readFileSync(index, 'utf8')))
  } else {
    app.get('*', (c) =>
      c.html(
        '<!doctype html><title>Toolmark agent server</title><p>The demo is not built. Run ' +
          '<code>pnpm --filter @toolmark-apps/demo build</code> (or <code>pnpm demo</code>) and reload.</p>',
      ),
    )
  }
  return app
}
