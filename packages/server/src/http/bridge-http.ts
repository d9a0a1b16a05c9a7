import { type Context, Hono } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import { maskPost } from '../cluster/mask.ts'
import { CLAIM_WAIT_MS, type Coordinator, TAKE_TIMEOUT_MS } from '../coordinate/coordinator.ts'
import { localCoordinator } from '../coordinate/local.ts'
import type { MovedStream } from '../relay/cluster.ts'
import { bound, MAX_INBOUND_BYTES, type PageConnection, type Relay } from '../relay/relay.ts'
import type { ToPageMessage } from '../relay/types.ts'
import { type Clock, systemClock } from '../shared/clock.ts'
import type { ErrorBody } from '../shared/contract.ts'
import { LimitExceeded, MAX_UNSENT_EVENTS } from '../shared/limits.ts'
import type { Store } from '../store/store.ts'
import { readLimited } from './body.ts'
import { failedRequest, tooMany, UNAUTHENTICATED } from './errors.ts'
import { checkOrigin, hostOf, ORIGIN_REFUSED } from './origin.ts'

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

  /** Keeps `message` for the stream (serialized here, the transport's edge) and writes it if a stream is open. */
  push(message: ToPageMessage): void {
    if (message.type === 'cancel') {
      // A request whose deadline passed before any stream carried it is withdrawn, never delivered:
      // the agent already has the timeout, so the page must not run it now.
      const at = this.kept.findIndex((k) => !k.written && k.requestId === message.id)
      if (at >= 0) {
        this.kept.splice(at, 1)
        return
      }
    }
    const event: Kept = { n: ++this.seq, text: JSON.stringify(message), written: false }
    if (message.type === 'call' || message.type === 'describe') event.requestId = message.id
    this.kept.push(event)
    while (this.kept.length > this.window) this.evicted = (this.kept.shift() as Kept).n
    this.write?.(event)
  }
}

/** The answer to a POST whose message was handed on: 202 with an empty body of declared length (no chunked framing). */
const accepted = (c: Context) => c.body(null, 202, { 'content-length': '0' })

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
  const bridge = new HttpBridge(deps)
  const app = new Hono()
  app.get(EVENTS_PATH, (c) => bridge.events(c))
  app.post(MESSAGES_PATH, (c) => bridge.message(c))
  // Any other method on the two paths: Hono's plain 404, as when this app answered them on its own.
  app.all(EVENTS_PATH, (c) => c.text('404 Not Found', 404))
  app.all(MESSAGES_PATH, (c) => c.text('404 Not Found', 404))
  app.onError(failedRequest('bridge-http', deps.log))
  return {
    app,
    dropStreams() {
      for (const stream of bridge.streams.values()) stream.detach?.()
    },
    close: () => bridge.close(),
  }
}

/** Where a `GET /toolmark/events` goes on: the page connection it streams, and whether it resumes after `n`. */
interface Opened {
  page: PageStream
  resume: boolean
  n: number
}

/** The page connections over HTTP of this instance, and the two routes that serve them. */
class HttpBridge {
  readonly streams = new Map<string, PageStream>()
  readonly #deps: BridgeHttpDeps
  readonly #window: number
  readonly #graceMs: number
  readonly #keepAliveMs: number
  readonly #clock: Clock
  readonly #coordinator: Coordinator
  readonly #detach: () => void

  constructor(deps: BridgeHttpDeps) {
    this.#deps = deps
    this.#window = deps.replayWindow ?? REPLAY_WINDOW
    this.#graceMs = deps.resumeGraceMs ?? RESUME_GRACE_MS
    this.#keepAliveMs = deps.keepAliveMs ?? 15_000
    this.#clock = deps.clock ?? systemClock
    this.#coordinator = deps.coordinator ?? localCoordinator()
    this.#detach = this.#coordinator.attachStreams({
      streams: () => this.streams.values(),
      has: (streamId) => this.streams.has(streamId),
      post: (message) => this.#postHere(message),
      end: (streamId, userId) => {
        const stream = this.streams.get(streamId)
        if (stream === undefined || stream.userId !== userId) return
        void stream.conn.refuse('too large')
        this.end(stream)
      },
      give: (streamId, userId, conversationId, to) => this.#give(streamId, userId, conversationId, to),
    })
  }

  /** Closes every page connection and stops answering the other instances. */
  close(): void {
    this.#detach()
    for (const stream of [...this.streams.values()]) this.end(stream)
  }

  /** A message another instance received for a stream of this one; false when the stream is not the user's here. */
  async #postHere(message: {
    streamId: string
    userId: string
    body: string
    refused?: string
  }): Promise<boolean> {
    const stream = this.streams.get(message.streamId)
    const found = stream !== undefined && stream.userId === message.userId
    if (found)
      await (message.refused === undefined
        ? stream.conn.receive(message.body)
        : stream.conn.refuse(message.refused))
    return found
  }

  /**
   * Hands a stream to another instance: it leaves this instance without closing its page connection (its page
   * loads move with it, see `PageConnection.handOver`). Undefined when it is not here for that user and conversation.
   */
  #give(streamId: string, userId: string, conversationId: string, to: string): MovedStream | undefined {
    const stream = this.streams.get(streamId)
    if (!stream || stream.userId !== userId || stream.conversationId !== conversationId) return undefined
    if (stream.grace !== undefined) this.#clock.clearTimeout(stream.grace)
    this.streams.delete(stream.id)
    stream.detach?.()
    const clientIds = stream.conn.handOver(to)
    const kept = stream.kept.map(({ n, text, written, requestId }) => ({
      n,
      text,
      written,
      ...(requestId === undefined ? {} : { requestId }),
    }))
    return { id: stream.id, seq: stream.seq, evicted: stream.evicted, kept, clientIds }
  }

  /** A stream handed over by another instance, now this instance's: its events, numbering and page loads. */
  #adopt(userId: string, conversationId: string, from: MovedStream): PageStream | undefined {
    const page = new PageStream(userId, conversationId, this.#window, from.id)
    page.seq = from.seq
    page.evicted = from.evicted
    page.kept.push(...from.kept)
    try {
      page.conn = this.#deps.relay.connect(
        userId,
        conversationId,
        (message) => page.push(message),
        from.clientIds,
      )
    } catch (error) {
      // Over the user's cap here: not adopted; the request goes on as a new stream and is refused there (429).
      if (error instanceof LimitExceeded) return undefined
      throw error
    }
    this.#hold(page)
    // Closes like any stream that dropped, unless the resume attaches to it first.
    page.grace = this.#clock.setTimeout(() => this.end(page), this.#graceMs)
    return page
  }

  #hold(page: PageStream): void {
    this.streams.set(page.id, page)
    this.#coordinator.holdStream(page.id, page.userId)
  }

  /** Closes a page connection and forgets its stream. */
  end(stream: PageStream): void {
    if (stream.grace !== undefined) this.#clock.clearTimeout(stream.grace)
    if (this.streams.get(stream.id) === stream) this.#coordinator.releaseStream(stream.id)
    this.streams.delete(stream.id)
    stream.detach?.()
    stream.conn.close()
  }

  /** The user of a request that passed the Host/Origin check and carries a live session, else an error. */
  async #user(c: Context): Promise<string | Response> {
    const problem = checkOrigin(hostOf(c.req.raw), c.req.header('origin'), this.#deps.allowedOrigins)
    if (problem) return fail(c, 403, ORIGIN_REFUSED[problem].code, ORIGIN_REFUSED[problem].message)
    const userId = await this.#deps.userOf(c.req.raw)
    return userId ?? fail(c, 401, UNAUTHENTICATED.code, UNAUTHENTICATED.message)
  }

  /** `GET /toolmark/events`: the user's page connection of the conversation, new or resumed, as SSE. */
  async events(c: Context): Promise<Response> {
    const userId = await this.#user(c)
    if (typeof userId !== 'string') return userId
    const conversation = await this.#deps.store.getConversation(c.req.query('conversation') ?? '')
    if (!conversation || conversation.userId !== userId)
      return fail(c, 403, 'forbidden', 'Not your conversation')
    const opened = await this.#open(c, userId, conversation.id)
    if (opened instanceof Response) return opened
    const { page } = opened
    page.detach?.() // a stream still attached (the browser did not notice its drop yet) gives way
    if (page.grace !== undefined) this.#clock.clearTimeout(page.grace)
    page.grace = undefined
    return streamSSE(c, (sse) => this.#stream(sse, opened))
  }

  /**
   * The page connection a `GET /toolmark/events` streams: the one its `Last-Event-ID` resumes (here, or handed
   * over by another instance), else a new one; the 429 answer when the user is over the cap.
   */
  async #open(c: Context, userId: string, conversationId: string): Promise<Opened | Response> {
    const [streamId, from] = (c.req.header('last-event-id') ?? '').split(':')
    let stream = streamId ? this.streams.get(streamId) : undefined
    const n = Number(from)
    // A stream that resumes here from another instance (shared mode) is handed over, with what it kept.
    if (!stream && streamId && Number.isInteger(n))
      stream = await this.#takeOver(streamId, userId, conversationId)
    const same = stream !== undefined && stream.userId === userId && stream.conversationId === conversationId
    if (stream && same && Number.isInteger(n) && n >= stream.evicted && n <= stream.seq)
      return { page: stream, resume: true, n }
    if (stream && same) this.end(stream)
    const fresh = this.#connect(userId, conversationId)
    if (fresh instanceof LimitExceeded) return tooMany(c, fresh)
    return { page: fresh, resume: false, n }
  }

  /** The stream `streamId` of this user, taken from the instance that holds it, if any. */
  async #takeOver(streamId: string, userId: string, conversationId: string): Promise<PageStream | undefined> {
    const holder = await this.#coordinator.streamElsewhere(streamId)
    if (!holder || holder.userId !== userId) return undefined
    return this.#coordinator.takeStream(
      holder.instance,
      { streamId, userId, conversationId },
      // Made here at once, before any message that followed the stream here is handled.
      (moved) => this.#adopt(userId, conversationId, moved),
    )
  }

  /** A new page connection, or the cap it is over. */
  #connect(userId: string, conversationId: string): PageStream | LimitExceeded {
    // A page connection of this conversation whose stream is down when another page load connects
    // is treated as gone (as a socket that is reconnecting at a takeover is): a full reload closes
    // the old page's stream, and its pending confirmations expire now, not after the resume grace.
    for (const other of [...this.streams.values()]) {
      if (other.userId === userId && other.conversationId === conversationId && other.write === undefined)
        this.end(other)
    }
    const fresh = new PageStream(userId, conversationId, this.#window)
    try {
      fresh.conn = this.#deps.relay.connect(userId, conversationId, (message) => fresh.push(message))
    } catch (error) {
      if (!(error instanceof LimitExceeded)) throw error
      return error
    }
    this.#hold(fresh)
    return fresh
  }

  /** Writes a page connection's events to its SSE stream (after `n` when it resumes) until it detaches. */
  async #stream(sse: SSEStreamingApi, { page, resume, n }: Opened): Promise<void> {
    let chain = Promise.resolve()
    let unsent = 0
    const send = (event: Kept) => {
      event.written = true
      // A page that does not read its stream is cut off (its connection ends) before it holds more than this.
      if (++unsent > MAX_UNSENT_EVENTS) {
        sse.abort()
        return this.end(page)
      }
      chain = chain
        .then(() => sse.writeSSE({ id: `${page.id}:${event.n}`, data: event.text }))
        .catch(() => {})
        .then(() => {
          unsent--
        })
    }
    let attached = true
    const detach = () => {
      if (!attached) return
      attached = false
      if (page.write === send) page.write = undefined
      if (page.detach === detach) page.detach = undefined
      void chain.then(() => sse.close())
      if (this.streams.get(page.id) === page && page.write === undefined) {
        page.grace = this.#clock.setTimeout(() => this.end(page), this.#graceMs)
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
      await sse.sleep(this.#keepAliveMs)
      if (attached)
        chain = chain
          .then(async () => {
            await sse.write(': keep-alive\n\n')
          })
          .catch(() => {})
    }
    await chain
  }

  /** `POST /toolmark/messages`: one message of the page, to its connection here or on the instance that holds it. */
  async message(c: Context): Promise<Response> {
    const userId = await this.#user(c)
    if (typeof userId !== 'string') return userId
    const streamId = c.req.header(STREAM_HEADER) ?? ''
    const stream = this.streams.get(streamId)
    // The stream may be another instance's (the user's own, its claim says), or it moved on lately (shared mode).
    let elsewhere: { instance: string; userId: string } | undefined
    if (!stream && streamId !== '') {
      // Where the stream is cannot be told now: the page may send it again (it was not handled).
      const looked = await this.#coordinator.findStream(streamId).catch(() => undefined)
      if (!looked || looked.unsure) return retryLater(c)
      elsewhere = looked.found
    }
    const remote =
      elsewhere && elsewhere.userId === userId && elsewhere.instance !== this.#coordinator.instance
    if ((!stream || stream.userId !== userId) && !remote)
      return fail(c, 404, 'unknown_stream', 'No such page connection: reopen the event stream')
    if (!c.req.header('content-type')?.startsWith('application/json'))
      return fail(c, 415, 'unsupported_media_type', 'Send the message as application/json')
    // The protocol's size limit, before parsing: reading stops there (a socket closes with 1009 at the same size).
    const body = await readLimited(c.req.raw, MAX_INBOUND_BYTES)
    if (body === undefined) {
      if (stream) {
        void stream.conn.refuse('too large')
        this.end(stream)
      }
      // The stream's own instance closes it, as a socket closes with 1009 wherever it is.
      else if (elsewhere) await this.#coordinator.endStream(elsewhere.instance, streamId, userId)
      return fail(c, 413, 'message_too_large', `Message over ${MAX_INBOUND_BYTES} bytes`)
    }
    if (stream) await stream.conn.receive(body)
    else if (elsewhere) return this.#postElsewhere(c, elsewhere.instance, { streamId, userId, body })
    return accepted(c)
  }

  /** Hands a message to the instance that holds its stream (shared mode): 202, or 404/503 when it did not arrive. */
  async #postElsewhere(
    c: Context,
    instance: string,
    { streamId, userId, body }: { streamId: string; userId: string; body: string },
  ): Promise<Response> {
    // Nothing over the protocol's limits leaves this instance (nor reaches Redis): only the refusal does.
    const checked = bound(body)
    // What crosses Redis is masked as the database's copy is (a tool's result, a confirmation's outcome).
    const handed = checked.ok
      ? {
          streamId,
          userId,
          body: await maskPost(
            body,
            {
              call: async (id) => ({
                describe: (await this.#deps.store.getCall(id))?.kind === 'describe',
                secrets: this.#deps.relay.callSecrets(id),
              }),
              confirm: (confirmId) => ({ secrets: this.#deps.relay.confirmSecrets(confirmId) }),
            },
            checked.value,
          ),
        }
      : { streamId, userId, body: '', refused: checked.detail }
    // Not delivered (the coordinator stayed unreachable while the hand-over was retried): the page may retry.
    const found = await this.#coordinator.postTo(instance, handed).catch(() => undefined)
    if (found === undefined) return retryLater(c)
    if (!found) return fail(c, 404, 'unknown_stream', 'No such page connection: reopen the event stream')
    return accepted(c)
  }
}
