import type { Context, Hono } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ErrorBody } from '../shared/contract.ts'
import type { Conversation, Store, StoredGrant } from '../store/store.ts'
import { readJson } from './body.ts'

/** A grant as the grants routes send it (the page's `Grant` of `@toolmark/core`). */
export interface GrantBody {
  id: string
  tool: string
  title?: string
  fingerprint: string
  caller: StoredGrant['caller']
  conversation?: string
  createdAt: number
  expiresAt?: number
}

/** Most grants one user keeps (`429 too_many_grants` past it). */
export const MAX_GRANTS_PER_USER = 200
/** The longest a grant may last: 365 days. */
export const MAX_GRANT_MS = 365 * 86_400_000
/** Largest grant request body, in bytes. */
const MAX_GRANT_BODY = 4096

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
const FINGERPRINT = /^[0-9a-f]{16,64}$/
const CALLERS = new Set(['inapp', 'webmcp', 'mcp', 'tour', 'test'])
const FIELDS = new Set(['tool', 'title', 'fingerprint', 'caller', 'conversation', 'expiresAt'])

/** The app's request variables the grants routes read (`userId` is set by the app's user middleware). */
export type GrantsEnv = { Variables: { userId: string | undefined } }

/** What the grants routes need of the app. */
export interface GrantRoutesDeps<E extends GrantsEnv> {
  store: Store
  now: () => number
  /** The user's own conversation `id`, or undefined. */
  own(c: Context<E>, id: string): Promise<Conversation | undefined>
}

const toBody = (g: StoredGrant): GrantBody => ({
  id: g.id,
  tool: g.tool,
  ...(g.title !== undefined && { title: g.title }),
  fingerprint: g.fingerprint,
  caller: g.caller,
  ...(g.conversationId !== undefined && { conversation: g.conversationId }),
  createdAt: g.createdAt,
  ...(g.expiresAt !== undefined && { expiresAt: g.expiresAt }),
})

const fail = (c: Context, status: ContentfulStatusCode, code: string, message: string) =>
  c.json({ error: { code, message } } satisfies ErrorBody, status)

/** Why a grant request body is refused, or the grant it asks for (without id, user and creation time). */
function readGrant(body: unknown, now: number): string | Omit<StoredGrant, 'id' | 'userId' | 'createdAt'> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Expected a JSON object'
  const b = body as Record<string, unknown>
  const extra = Object.keys(b).find((k) => !FIELDS.has(k))
  if (extra !== undefined) return `Unknown field "${extra.slice(0, 40)}"`
  if (typeof b.tool !== 'string' || !TOOL_NAME.test(b.tool)) return 'tool must be a tool name'
  if (b.title !== undefined && (typeof b.title !== 'string' || b.title.length > 200))
    return 'title must be a string of at most 200 characters'
  if (typeof b.fingerprint !== 'string' || !FINGERPRINT.test(b.fingerprint))
    return 'fingerprint must be 16 to 64 lowercase hex digits'
  if (typeof b.caller !== 'string' || !CALLERS.has(b.caller))
    return 'caller must be one of inapp, webmcp, mcp, tour, test'
  if (b.conversation !== undefined && typeof b.conversation !== 'string')
    return 'conversation must be a conversation id'
  if (
    b.expiresAt !== undefined &&
    (!Number.isSafeInteger(b.expiresAt) ||
      (b.expiresAt as number) <= now ||
      (b.expiresAt as number) > now + MAX_GRANT_MS)
  )
    return 'expiresAt must be a time in the next 365 days (epoch ms)'
  if (b.conversation === undefined && b.expiresAt === undefined) return 'Give conversation or expiresAt'
  return {
    tool: b.tool,
    ...(b.title !== undefined && { title: b.title as string }),
    fingerprint: b.fingerprint,
    caller: b.caller as StoredGrant['caller'],
    ...(b.conversation !== undefined && { conversationId: b.conversation }),
    ...(b.expiresAt !== undefined && { expiresAt: b.expiresAt as number }),
  }
}

/**
 * The signed-in user's grants: `GET /api/grants` lists them (`{ grants }`, newest first, expired ones left
 * out), `POST /api/grants` stores one (`201 { grant }`; it replaces the user's grant for the same tool,
 * caller and conversation), `DELETE /api/grants/:id` revokes one (`204`). Nobody signed in: `401`; another
 * user's grant or conversation: `404`; a bad body: `400 invalid_grant`; a store without grants: `501`.
 */
export function grantRoutes<E extends GrantsEnv>(app: Hono<E>, deps: GrantRoutesDeps<E>): void {
  const { store, now } = deps
  const ready = (c: Context<E>): { userId: string } | Response => {
    const userId = c.get('userId')
    if (!userId) return fail(c, 401, 'unauthenticated', 'No valid session')
    if (!store.listGrants || !store.putGrant || !store.revokeGrant)
      return fail(c, 501, 'grants_unavailable', 'This store keeps no grants')
    return { userId }
  }

  app.get('/api/grants', async (c) => {
    const r = ready(c)
    if (r instanceof Response) return r
    const grants = await store.listGrants!(r.userId, now())
    return c.json({ grants: grants.map(toBody) })
  })

  app.post('/api/grants', async (c) => {
    const r = ready(c)
    if (r instanceof Response) return r
    if (!c.req.header('content-type')?.startsWith('application/json'))
      return fail(c, 415, 'unsupported_media_type', 'Send the grant as application/json')
    const read = await readJson(c.req.raw, MAX_GRANT_BODY)
    if (!read.ok && read.reason === 'too_large')
      return fail(c, 413, 'body_too_large', `Request body over ${MAX_GRANT_BODY} bytes`)
    const at = now()
    const grant = readGrant(read.ok ? read.value : undefined, at)
    if (typeof grant === 'string') return fail(c, 400, 'invalid_grant', grant)
    if (grant.conversationId !== undefined && !(await deps.own(c, grant.conversationId)))
      return fail(c, 404, 'not_found', 'No such conversation')
    const existing = await store.listGrants!(r.userId, at)
    const replaces = existing.some(
      (g) => g.tool === grant.tool && g.caller === grant.caller && g.conversationId === grant.conversationId,
    )
    if (!replaces && existing.length >= MAX_GRANTS_PER_USER)
      return fail(c, 429, 'too_many_grants', `Too many grants: at most ${MAX_GRANTS_PER_USER} per user`)
    const stored: StoredGrant = { ...grant, id: crypto.randomUUID(), userId: r.userId, createdAt: at }
    await store.putGrant!(stored)
    return c.json({ grant: toBody(stored) }, 201)
  })

  app.delete('/api/grants/:id', async (c) => {
    const r = ready(c)
    if (r instanceof Response) return r
    if (!(await store.revokeGrant!(r.userId, c.req.param('id'))))
      return fail(c, 404, 'not_found', 'No such grant')
    return c.body(null, 204)
  })
}
