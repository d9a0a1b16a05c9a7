import { Hono } from 'hono'
import type { ConversationEvents } from '../agent/events.ts'
import type { Agent } from '../agent/loop.ts'
import type { Provider } from '../agent/types.ts'
import type { Store } from '../store/store.ts'
import { chatStreamRoute } from './chat-stream.ts'
import { conversationRoutes, ownConversation } from './conversations.ts'
import { fail, failedRequest } from './errors.ts'
import { grantRoutes } from './grants.ts'
import { chatCompletions } from './openai-compat.ts'
import { originCheck } from './origin.ts'
import type { SessionEnv, Sessions } from './session.ts'

export { MAX_BODY_BYTES } from './conversations.ts'
export {
  AUTHENTICATE_FAILED,
  AuthenticateFailed,
  failureForLog,
  internalError,
  UNAUTHENTICATED,
} from './errors.ts'
export { checkOrigin, hostOf, isLoopbackName, ORIGIN_REFUSED, type OriginProblem } from './origin.ts'
export { type Authenticate, userOf } from './session.ts'

export interface HttpDeps {
  store: Store
  agent: Agent
  events: ConversationEvents
  /** The one way to find a request's user: `authenticate`, else the demo session cookie. */
  sessions: Sessions
  /** Answers the requests no route matched (after the Host/Origin check). Default a JSON 404. */
  fallback?: ((request: Request) => Response | Promise<Response>) | undefined
  /** Serves `POST /v1/chat/completions` with this provider (no session needed). Default: not served. */
  chatCompletions?: Provider | undefined
  /** Public origins allowed besides loopback names (see {@link checkOrigin}). */
  allowedOrigins?: readonly string[]
  /** Milliseconds between SSE keep-alive comments. Default 15 000. */
  sseKeepAliveMs?: number
  /** Most chat event streams one user holds open at once (429 `too_many_streams` past it). Default 16. */
  maxChatStreamsPerUser?: number
  /** Most conversations one user may have (429 `too_many_conversations` past it). Default 1000. */
  maxConversationsPerUser?: number
  /** Filled with the open chat streams, each as the function that ends it (the server's `close()` ends them). */
  chatStreams: Set<() => void>
  /** Time source (tests). Default `Date.now`. */
  now?: () => number
  /** Error sink. Default `console.error`. */
  log?: (line: string) => void
}

/**
 * The Hono app, in the order a request meets it: the Host/Origin check (`origin.ts`), the
 * OpenAI-compatible endpoint (no user), the user (`session.ts`), the conversation API
 * (`conversations.ts`), the chat event stream (`chat-stream.ts`), the grants, then JSON 404s for
 * unknown API routes and `fallback` (the demo's static files) for the rest. Every 4xx answer is JSON
 * `{ error: { code, message } }`.
 */
export function createApp(deps: HttpDeps): Hono<SessionEnv> {
  const { store, agent, events, sessions } = deps
  const now = deps.now ?? Date.now
  const own = ownConversation(store)
  const app = new Hono<SessionEnv>()

  // Every route, the OpenAI-compatible one included, sits behind the Host/Origin check.
  app.use('*', originCheck(deps.allowedOrigins ?? []))
  // The embedded planner as an OpenAI-compatible endpoint: no session (mounted before the session middleware).
  if (deps.chatCompletions) app.route('/', chatCompletions(deps.chatCompletions))
  app.use('*', sessions.middleware())

  conversationRoutes(app, {
    store,
    agent,
    sessions,
    own,
    maxConversationsPerUser: deps.maxConversationsPerUser,
  })
  chatStreamRoute(app, {
    agent,
    events,
    own,
    keepAliveMs: deps.sseKeepAliveMs,
    maxChatStreamsPerUser: deps.maxChatStreamsPerUser,
    open: deps.chatStreams,
  })
  grantRoutes(app, { store, now, own })

  app.all('/api/*', (c) => fail(c, 404, 'not_found', 'No such API route'))
  app.all('/toolmark/*', (c) => fail(c, 404, 'not_found', 'No such route'))

  app.all('*', (c) => (deps.fallback ? deps.fallback(c.req.raw) : fail(c, 404, 'not_found', 'Not found')))
  app.notFound((c) => fail(c, 404, 'not_found', 'Not found'))
  app.onError(failedRequest('http', deps.log))
  return app
}
