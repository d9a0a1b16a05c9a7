import { type Context, Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import { maskPost } from '../cluster/mask.ts'
import { CLAIM_WAIT_MS, type Coordinator, TAKE_TIMEOUT_MS } from '../coordinate/coordinator.ts'
import { localCoordinator } from '../coordinate/local.ts'
import type { MovedStream } from '../relay/cluster.ts'
import { bound, MAX_INBOUND_BYTES, type PageConnection, type Relay } from '../relay/relay.ts'
import { type Clock, systemClock } from '../shared/clock.ts'
import type { ErrorBody } from '../shared/contract.ts'
import { LimitExceeded } from '../shared/limits.ts'
import type { Store } from '../store/store.ts'
import { checkOrigin, failureForLog, hostOf, internalError, ORIGIN_REFUSED, UNAUTHENTICATED } from './app.ts'
import { readLimited } from './body.ts'
import { isStoreUnavailable, storeUnavailable } from './health.ts'

/** The page's event stream (server → page): `GET /toolmark/events?conversation=:id`. */
export const EVENTS_PATH = '/toolmark/events'
/** Where the page POSTs its messages (page → server). */
export const MESSAGES_PATH = '/toolmark/messages'
/** Header naming the page connection on every POST (a cross-site form cannot send a custom header). */
export const STREAM_HEADER = 'X-Toolmark-Stream'
/** Events kept per page connection for a resume (`Last-Event-ID`); older ones are gone for good. */
export const REPLAY_WINDOW = 256
/**
 * Response header marking a refused POST the page may send again as it is (its message was not handled): set on
 * `503 coordinator_unavailable`, when the instances could not tell where the stream is (the coordinator is
 * unreachable, or came back and the stream's claim is not made again yet). The bridge's `httpTransport` retries
 * such a send a few times with backoff, and never one without it.
 */
export const RETRYABLE_HEADER = 'X-Toolmark-Retryable'
/**
 * After this instance's coordinator came back, how long a POST waits for its stream's claim to be made again; how
 * long a stream resuming on another instance waits for its old instance to hand it over.
 */
export { CLAIM_WAIT_MS, TAKE_TIMEOUT_MS }
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
   * How a POST that lands on another instance than its stream is handed to the stream's instance (shared mode),
   * so the HTTP transport needs no sticky sessions. Default none to reach (one process).
   */
  coordinator?: Coordinator | undefined
}

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
    readonly id: string = crypto.randomUUID(),
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

/** `503 coordinator_unavailable`, marked retryable: the message was not handled, the page may send it again. */
const retryLater = (c: Context) => {
  c.header(RETRYABLE_HEADER, '1')
  c.header('Retry-After', '1')
  return fail(
    c,
    503,
    'coordinator_unavailable',
    'The server instances cannot reach each other right now; try again shortly',
  )
}

const fail = (c: Context, status: 400 | 401 | 403 | 404 | 413 | 415 | 503, code: string, message: string) =>
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
 *   that is not the user's; 415 without `application/json`; 413 for a body over the protocol's
 *   1048576 bytes, read no further and rejected (`invalid`, `too large`), which also closes the page
 *   connection (a socket closes with 1009).
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
  const coordinator = deps.coordinator ?? localCoordinator()
  const detach = coordinator.attachStreams({
    streams: () => streams.values(),
    has: (streamId) => streams.has(streamId),
    post: async (message) => {
      const stream = streams.get(message.streamId)
      const found = stream !== undefined && stream.userId === message.userId
      if (found)
        await (message.refused === undefined
          ? stream.conn.receive(message.body)
          : stream.conn.refuse(message.refused))
      return found
    },
    end: (streamId, userId) => {
      const stream = streams.get(streamId)
      if (stream === undefined || stream.userId !== userId) return
      void stream.conn.refuse('too large')
      end(stream)
    },
    give: (streamId, userId, conversationId, to) => {
      // It leaves this instance without closing its page connection (its page loads move with it, see
      // `PageConnection.handOver`).
      const stream = streams.get(streamId)
      if (!stream || stream.userId !== userId || stream.conversationId !== conversationId) return undefined
      if (stream.grace !== undefined) clock.clearTimeout(stream.grace)
      streams.delete(stream.id)
      stream.detach?.()
      const clientIds = stream.conn.handOver(to)
      const kept = stream.kept.map(({ n, text, written, requestId }) => ({
        n,
        text,
        written,
        ...(requestId === undefined ? {} : { requestId }),
      }))
      return { id: stream.id, seq: stream.seq, evicted: stream.evicted, kept, clientIds }
    },
  })

  /** A stream handed over by another instance, now this instance's: its events, numbering and page loads. */
  const adopt = (userId: string, conversationId: string, from: MovedStream): PageStream | undefined => {
    const page = new PageStream(userId, conversationId, window, from.id)
    page.seq = from.seq
    page.evicted = from.evicted
    page.kept.push(...from.kept)
    try {
      page.conn = deps.relay.connect(userId, conversationId, (text) => page.push(text), from.clientIds)
    } catch (error) {
      // Over the user's cap here: not adopted; the request goes on as a new stream and is refused there (429).
      if (error instanceof LimitExceeded) return undefined
      throw error
    }
    streams.set(page.id, page)
    coordinator.holdStream(page.id, userId)
    // Closes like any stream that dropped, unless the resume attaches to it first.
    page.grace = clock.setTimeout(() => end(page), graceMs)
    return page
  }

  const end = (stream: PageStream): void => {
    if (stream.grace !== undefined) clock.clearTimeout(stream.grace)
    if (streams.get(stream.id) === stream) coordinator.releaseStream(stream.id)
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
    // A stream that resumes here from another instance (shared mode) is handed over, with what it kept.
    if (!stream && streamId && Number.isInteger(n)) {
      const holder = await coordinator.streamElsewhere(streamId)
      if (holder && holder.userId === userId)
        stream = await coordinator.takeStream(
          holder.instance,
          { streamId, userId, conversationId: conversation.id },
          // Made here at once, before any message that followed the stream here is handled.
          (moved) => adopt(userId, conversation.id, moved),
        )
    }
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
      try {
        fresh.conn = deps.relay.connect(userId, conversation.id, (text) => fresh.push(text))
      } catch (error) {
        if (!(error instanceof LimitExceeded)) throw error
        if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter))
        return c.json({ error: { code: error.code, message: error.message } } satisfies ErrorBody, 429)
      }
      streams.set(fresh.id, fresh)
      coordinator.holdStream(fresh.id, userId)
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
    // The stream may be another instance's (the user's own, its claim says), or it moved on lately (shared mode).
    let elsewhere: { instance: string; userId: string } | undefined
    if (!stream && streamId !== '') {
      // Where the stream is cannot be told now: the page may send it again (it was not handled).
      const looked = await coordinator.findStream(streamId).catch(() => undefined)
      if (!looked || looked.unsure) return retryLater(c)
      elsewhere = looked.found
    }
    const remote = elsewhere && elsewhere.userId === userId && elsewhere.instance !== coordinator.instance
    if ((!stream || stream.userId !== userId) && !remote)
      return fail(c, 404, 'unknown_stream', 'No such page connection: reopen the event stream')
    if (!c.req.header('content-type')?.startsWith('application/json'))
      return fail(c, 415, 'unsupported_media_type', 'Send the message as application/json')
    // The protocol's size limit, before parsing: reading stops there (a socket closes with 1009 at the same size).
    const body = await readLimited(c.req.raw, MAX_INBOUND_BYTES)
    if (body === undefined) {
      if (stream) {
        void stream.conn.refuse('too large')
        end(stream)
      }
      // The stream's own instance closes it, as a socket closes with 1009 wherever it is.
      else if (elsewhere) await coordinator.endStream(elsewhere.instance, streamId, userId)
      return fail(c, 413, 'message_too_large', `Message over ${MAX_INBOUND_BYTES} bytes`)
    }
    if (stream) await stream.conn.receive(body)
    else if (elsewhere) {
      // Nothing over the protocol's limits leaves this instance (nor reaches Redis): only the refusal does.
      const checked = bound(body)
      // What crosses Redis is masked as the database's copy is (a tool's result, a confirmation's outcome).
      const handed = checked.ok
        ? {
            streamId,
            userId,
            body: await maskPost(body, {
              call: async (id) => ({
                describe: (await deps.store.getCall(id))?.kind === 'describe',
                secrets: deps.relay.callSecrets(id),
              }),
              confirm: (confirmId) => ({ secrets: deps.relay.confirmSecrets(confirmId) }),
            }),
          }
        : { streamId, userId, body: '', refused: checked.detail }
      // Not delivered (the coordinator stayed unreachable while the hand-over was retried): the page may retry.
      const found = await coordinator.postTo(elsewhere.instance, handed).catch(() => undefined)
      if (found === undefined) return retryLater(c)
      if (!found) return fail(c, 404, 'unknown_stream', 'No such page connection: reopen the event stream')
    }
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
      detach()
      for (const stream of [...streams.values()]) end(stream)
    },
  }
}
