import { type Context, Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { Cluster } from '../relay/cluster.ts'
import { LEASE_MS, MAX_INBOUND_BYTES, type PageConnection, type Relay } from '../relay/relay.ts'
import { type Clock, systemClock } from '../shared/clock.ts'
import type { ErrorBody } from '../shared/contract.ts'
import type { Store } from '../store/store.ts'
import { checkOrigin, failureForLog, hostOf, internalError, ORIGIN_REFUSED, UNAUTHENTICATED } from './app.ts'
import { isStoreUnavailable, storeUnavailable } from './health.ts'

/** The page's event stream (server → page): `GET /toolmark/events?conversation=:id`. */
export const EVENTS_PATH = '/toolmark/events'
/** Where the page POSTs its messages (page → server). */
export const MESSAGES_PATH = '/toolmark/messages'
/** Header naming the page connection on every POST (a cross-site form cannot send a custom header). */
export const STREAM_HEADER = 'X-Toolmark-Stream'
/** Events kept per page connection for a resume (`Last-Event-ID`); older ones are gone for good. */
export const REPLAY_WINDOW = 256
/** How long a page connection waits for its stream to come back before it closes like a socket would. */
export const RESUME_GRACE_MS = 30_000

export interface BridgeHttpDeps {
  store: Store
  relay: Relay
  /** The request's user (the app's `authenticate`, else the demo session cookie), or undefined. */
  userOf: (request: Request) => Promise<string | undefined>
  /** Public origins allowed besides loopback names (see `checkOrigin`). */
  allowedOrigins?: readonly string[]
  /** Milliseconds between keep-alive comments on a stream. Default 15 000. */
  keepAliveMs?: number
  /** Default {@link RESUME_GRACE_MS}. */
  resumeGraceMs?: number
  /** Default {@link REPLAY_WINDOW}. */
  replayWindow?: number
  /** Timers of the resume grace (tests use a manual clock). Default the system clock. */
  clock?: Clock
  /** Error sink (a failing `authenticate`, for one). Default `console.error`. */
  log?: (line: string) => void
  /**
   * Shared mode: a POST that lands on another instance than its stream is handed to the stream's
   * instance, so the HTTP transport needs no sticky sessions. Default none (one instance).
   */
  cluster?: Cluster | undefined
}

/** The coordinator key of a page stream's claim. */
const streamKey = (id: string) => `stream:${id}`

/** One event of a page connection: its number and text, and whether a stream ever carried it. */
interface Kept {
  n: number
  text: string
  written: boolean
  /** The id of an undelivered `call`/`describe`, so that its deadline's `cancel` can withdraw it. */
  requestId?: string
}

/**
 * One page connection over HTTP: the relay's connection for one user and conversation, the events it
 * sent (numbered from 1, the last {@link REPLAY_WINDOW} kept), and the stream writing them, if any.
 */
class PageStream {
  readonly id = crypto.randomUUID()
  readonly kept: Kept[] = []
  seq = 0
  /** The highest number no longer kept (0: nothing was evicted). */
  evicted = 0
  write: ((event: Kept) => void) | undefined
  detach: (() => void) | undefined
  grace: unknown
  conn!: PageConnection

  constructor(
    readonly userId: string,
    readonly conversationId: string,
    readonly window: number,
  ) {}

  push(text: string): void {
    // The relay writes `protocol` then `type` first (relay.ts), so the prefix names the message's type.
    const kind = /^\{"protocol":1,"type":"(call|describe|cancel)"/.exec(text)?.[1]
    if (kind === 'cancel') {
      // A request whose deadline passed before any stream carried it is withdrawn, never delivered:
      // the agent already has the timeout, so the page must not run it now.
      const id = (JSON.parse(text) as { id?: unknown }).id
      const at = this.kept.findIndex((k) => !k.written && k.requestId === id)
      if (at >= 0) {
        this.kept.splice(at, 1)
        return
      }
    }
    const event: Kept = { n: ++this.seq, text, written: false }
    if (kind === 'call' || kind === 'describe') event.requestId = (JSON.parse(text) as { id: string }).id
    this.kept.push(event)
    while (this.kept.length > this.window) this.evicted = (this.kept.shift() as Kept).n
    this.write?.(event)
  }
}

const fail = (c: Context, status: 400 | 401 | 403 | 404 | 413 | 415, code: string, message: string) =>
  c.json({ error: { code, message } } satisfies ErrorBody, status)

/**
 * The bridge over HTTP for pages without WebSockets, beside the socket of `ws.ts` and held to the
 * same rules: `Host` and `Origin` are checked first (403), then the user (`authenticate`, else the session cookie: 401), then the
 * conversation must be the user's (403); each POST is handed to the relay's own inbound handlers, so
 * every Security MUST, limit and rejection is the one a socket gets.
 *
 * - `GET /toolmark/events?conversation=:id` streams the relay's messages as SSE events `<stream>:<n>`,
 *   after a `ready` event naming a new page connection. With `Last-Event-ID: <stream>:<n>` of the
 *   user's own live connection (same conversation) it resumes instead: the events after `n` are
 *   replayed, then new ones follow. An unknown id, another user's, or one older than the replay
 *   window starts a new page connection (the old one closes, as a socket would).
 * - `POST /toolmark/messages` with `X-Toolmark-Stream: <stream>` and a JSON body: the message goes to
 *   the relay (202, accepted or rejected alike, as a socket gets no answer either); 404 for a stream
 *   that is not the user's; 415 without `application/json`; 413 for a body over 4 MiB, which also
 *   closes the page connection (a socket closes with 1009).
 * - A page connection whose stream dropped waits {@link RESUME_GRACE_MS} for it; until then the relay
 *   keeps sending to it (the events wait in the window), then it closes.
 */
export function bridgeHttp(deps: BridgeHttpDeps): {
  app: Hono
  /** Ends every live stream from the server side (their pages resume). Tests. */
  dropStreams(): void
  close(): void
} {
  const window = deps.replayWindow ?? REPLAY_WINDOW
  const graceMs = deps.resumeGraceMs ?? RESUME_GRACE_MS
  const keepAliveMs = deps.keepAliveMs ?? 15_000
  const clock = deps.clock ?? systemClock
  const streams = new Map<string, PageStream>()
  const app = new Hono()
  const cluster = deps.cluster
  // Shared mode: this instance's streams are claimed (and the claims renewed) so other instances find them.
  const heartbeat = cluster
    ? setInterval(() => {
        for (const stream of streams.values()) cluster.hold(streamKey(stream.id), stream.userId)
      }, LEASE_MS / 3)
    : undefined
  ;(heartbeat as { unref?: () => void } | undefined)?.unref?.()
  /** POSTs handed to another instance, waiting for its `posted` (by reply id). */
  const handedOn = new Map<string, (found: boolean) => void>()
  cluster?.onMessage(async (message) => {
    if (message.kind === 'posted') {
      handedOn.get(message.id)?.(message.found)
      return
    }
    if (message.kind !== 'post' && message.kind !== 'end') return
    const stream = streams.get(message.streamId)
    const found = stream !== undefined && stream.userId === message.userId
    if (message.kind === 'end') {
      if (found) end(stream)
      return
    }
    if (found) await stream.conn.receive(message.body)
    if (message.reply)
      await cluster.send(message.reply.instance, { kind: 'posted', id: message.reply.id, found })
  })

  /**
   * Hands a POST to the instance holding its stream and resolves once that instance handled it (true), found
   * no such stream (false), or did not answer within {@link LEASE_MS} (true: it may still handle it). The page
   * sends its messages one at a time, each after the answer to the one before, so waiting here keeps them in
   * order whichever instance each lands on.
   */
  const handOn = (to: string, message: { streamId: string; userId: string; body: string }) => {
    const c = cluster as Cluster
    const id = crypto.randomUUID()
    return new Promise<boolean>((resolve, reject) => {
      const timer = clock.setTimeout(() => settle(true), LEASE_MS)
      const forget = () => {
        clock.clearTimeout(timer)
        handedOn.delete(id)
      }
      const settle = (found: boolean) => {
        forget()
        resolve(found)
      }
      handedOn.set(id, settle)
      c.send(to, { kind: 'post', ...message, reply: { instance: c.instance, id } }).catch(
        (error: unknown) => {
          forget()
          reject(error)
        },
      )
    })
  }

  const end = (stream: PageStream): void => {
    if (stream.grace !== undefined) clock.clearTimeout(stream.grace)
    if (streams.get(stream.id) === stream) cluster?.release(streamKey(stream.id))
    streams.delete(stream.id)
    stream.detach?.()
    stream.conn.close()
  }

  /** The user of a request that passed the Host/Origin check and carries a live session, else an error. */
  const authenticate = async (c: Context): Promise<string | Response> => {
    const problem = checkOrigin(hostOf(c.req.raw), c.req.header('origin'), deps.allowedOrigins)
    if (problem) return fail(c, 403, ORIGIN_REFUSED[problem].code, ORIGIN_REFUSED[problem].message)
    const userId = await deps.userOf(c.req.raw)
    return userId ?? fail(c, 401, UNAUTHENTICATED.code, UNAUTHENTICATED.message)
  }

  app.get(EVENTS_PATH, async (c) => {
    const userId = await authenticate(c)
    if (typeof userId !== 'string') return userId
    const conversation = await deps.store.getConversation(c.req.query('conversation') ?? '')
    if (!conversation || conversation.userId !== userId)
      return fail(c, 403, 'forbidden', 'Not your conversation')

    const [streamId, from] = (c.req.header('last-event-id') ?? '').split(':')
    let stream = streamId ? streams.get(streamId) : undefined
    const n = Number(from)
    let resume =
      stream !== undefined &&
      stream.userId === userId &&
      stream.conversationId === conversation.id &&
      Number.isInteger(n) &&
      n >= stream.evicted &&
      n <= stream.seq
    if (stream && !resume && stream.userId === userId && stream.conversationId === conversation.id)
      end(stream)
    if (!resume) {
      // A page connection of this conversation whose stream is down when another page load connects
      // is treated as gone (as a socket that is reconnecting at a takeover is): a full reload closes
      // the old page's stream, and its pending confirmations expire now, not after the resume grace.
      for (const other of [...streams.values()]) {
        if (other.userId === userId && other.conversationId === conversation.id && other.write === undefined)
          end(other)
      }
      const fresh = new PageStream(userId, conversation.id, window)
      fresh.conn = deps.relay.connect(userId, conversation.id, (text) => fresh.push(text))
      streams.set(fresh.id, fresh)
      cluster?.hold(streamKey(fresh.id), userId)
      stream = fresh
      resume = false
    }
    const page = stream as PageStream
    page.detach?.() // a stream still attached (the browser did not notice its drop yet) gives way
    if (page.grace !== undefined) clock.clearTimeout(page.grace)
    page.grace = undefined

    return streamSSE(c, async (sse) => {
      let chain = Promise.resolve()
      const send = (event: Kept) => {
        event.written = true
        chain = chain
          .then(() => sse.writeSSE({ id: `${page.id}:${event.n}`, data: event.text }))
          .catch(() => {})
      }
      let attached = true
      const detach = () => {
        if (!attached) return
        attached = false
        if (page.write === send) page.write = undefined
        if (page.detach === detach) page.detach = undefined
        void chain.then(() => sse.close())
        if (streams.get(page.id) === page && page.write === undefined) {
          page.grace = clock.setTimeout(() => end(page), graceMs)
        }
      }
      page.write = send
      page.detach = detach
      sse.onAbort(detach)
      if (!resume) {
        chain = chain.then(() =>
          sse.writeSSE({ event: 'ready', id: `${page.id}:0`, data: JSON.stringify({ stream: page.id }) }),
        )
      }
      for (const event of page.kept) if (event.n > (resume ? n : 0)) send(event)
      while (attached && !sse.aborted && !sse.closed) {
        await sse.sleep(keepAliveMs)
        if (attached)
          chain = chain
            .then(async () => {
              await sse.write(': keep-alive\n\n')
            })
            .catch(() => {})
      }
      await chain
    })
  })

  app.post(MESSAGES_PATH, async (c) => {
    const userId = await authenticate(c)
    if (typeof userId !== 'string') return userId
    const streamId = c.req.header(STREAM_HEADER) ?? ''
    const stream = streams.get(streamId)
    // Shared mode: the stream may be another instance's (the user's own, its claim says).
    const elsewhere =
      !stream && cluster && streamId !== '' ? await cluster.holder(streamKey(streamId)) : undefined
    const remote = elsewhere && elsewhere.value === userId && elsewhere.instance !== cluster?.instance
    if ((!stream || stream.userId !== userId) && !remote)
      return fail(c, 404, 'unknown_stream', 'No such page connection: reopen the event stream')
    if (!c.req.header('content-type')?.startsWith('application/json'))
      return fail(c, 415, 'unsupported_media_type', 'Send the message as application/json')
    const declared = Number(c.req.header('content-length'))
    const body =
      declared > MAX_INBOUND_BYTES + DRAIN_BYTES ? undefined : await readLimited(c.req.raw, MAX_INBOUND_BYTES)
    if (body === undefined) {
      if (stream) end(stream)
      // The stream's own instance closes it, as a socket closes with 1009 wherever it is.
      else if (elsewhere && cluster) await cluster.send(elsewhere.instance, { kind: 'end', streamId, userId })
      return fail(c, 413, 'message_too_large', `Message over ${MAX_INBOUND_BYTES} bytes`)
    }
    if (stream) await stream.conn.receive(body)
    else if (elsewhere && !(await handOn(elsewhere.instance, { streamId, userId, body })))
      return fail(c, 404, 'unknown_stream', 'No such page connection: reopen the event stream')
    return c.body(null, 202)
  })

  app.onError((error, c) => {
    ;(deps.log ?? console.error)(`[bridge-http] ${c.req.method} failed: ${failureForLog(error)}`)
    if (isStoreUnavailable(error)) return storeUnavailable()
    return c.json(internalError(error), 500)
  })

  return {
    app,
    dropStreams() {
      for (const stream of streams.values()) stream.detach?.()
    },
    close() {
      if (heartbeat !== undefined) clearInterval(heartbeat)
      for (const stream of [...streams.values()]) end(stream)
    },
  }
}

/**
 * How much more than the limit a refused body is still read (and dropped) before the 413 is sent: a client
 * still sending its body when the server stops reading gets a reset connection instead of the answer.
 */
const DRAIN_BYTES = MAX_INBOUND_BYTES

/**
 * The request body as UTF-8 text, or undefined once it is over `max` bytes (the rest is read and dropped,
 * up to {@link DRAIN_BYTES} more, so the client reads the answer).
 */
async function readLimited(request: Request, max: number): Promise<string | undefined> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      chunks.length = 0
      if (size > max + DRAIN_BYTES) {
        await reader.cancel().catch(() => {})
        return undefined
      }
      continue
    }
    chunks.push(value)
  }
  if (size > max) return undefined
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return new TextDecoder().decode(bytes)
}
