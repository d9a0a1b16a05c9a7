import { listeners } from './listeners.ts'
import { giveWay, type Labelled, labelOf, MAX_BUFFERED_MESSAGES } from './outgoing.ts'
import { sameOriginUrl } from './same-origin.ts'
import type { BridgeTransport } from './transport.ts'

/** Inbound events longer than this many UTF-16 code units are dropped unparsed (as over WebSocket). */
export const MAX_EVENT_LENGTH = 4 * 1048576
/** Request header naming the server's page connection on every POST; a cross-site form cannot send it. */
export const STREAM_HEADER = 'X-Toolmark-Stream'
/**
 * Response header by which the server marks a refused POST as retryable (its message was not handled): the send is
 * tried again, at most {@link MAX_RETRIES} times with backoff. An answer without it is never retried.
 */
export const RETRYABLE_HEADER = 'X-Toolmark-Retryable'
/** Most retries of one send the server marked retryable (after 250, 500, 1000, 2000 ms). */
export const MAX_RETRIES = 4
/** Name of the stream's first event: its data is `{ "stream": "<id>" }`, a new page connection. */
export const READY_EVENT = 'ready'

/** The part of an `EventSource` this transport uses: the browser's and the `eventsource` package's both fit. */
export interface EventSourceLike {
  readonly readyState: number
  close(): void
  addEventListener(type: 'message' | typeof READY_EVENT, listener: (event: MessageEventLike) => void): void
  addEventListener(type: 'error', listener: (event: unknown) => void): void
}

/** The part of a `MessageEvent` of an `EventSource` this transport reads. */
export interface MessageEventLike {
  readonly data: unknown
  readonly lastEventId: string
}

/** An `EventSource` constructor (`globalThis.EventSource`, or `EventSource` from the `eventsource` package). */
export type EventSourceConstructorLike = new (url: string) => EventSourceLike

/** Options of {@link httpTransport}. */
export interface HttpTransportOptions {
  /** Same-origin URL of the server's event stream (server → page), e.g. `/toolmark/events?conversation=…`. */
  streamUrl: string
  /** Same-origin URL the page POSTs its messages to, e.g. `/toolmark/messages`. */
  postUrl: string
  /** Extra request headers of every POST (a CSRF token, say), read on every send. */
  headers?: () => Record<string, string>
  /**
   * The page URL both URLs are resolved and checked against. Default `globalThis.location?.href`;
   * without either, they must be absolute http(s) URLs.
   */
  baseUrl?: string
  /** `EventSource` implementation; defaults to `globalThis.EventSource`. */
  EventSource?: EventSourceConstructorLike
}

/** The transport returned by {@link httpTransport}. */
export interface HttpTransport extends BridgeTransport {
  onError(handler: (error: unknown) => void): () => void
  close(): void
}

interface Outgoing extends Labelled {
  body: string
  resolve: () => void
  reject: (error: unknown) => void
}

const CLOSED = 2

/** Most bytes of an answer's body read to free the connection; a longer or unknown one is cancelled. */
const READ_TO_RELEASE = 65_536

/**
 * Frees the connection of a POST's answer, whose body is not used. A short body of known length is read (cheap);
 * any other is cancelled (which costs an abort error in some runtimes, so not the common path).
 */
async function release(response: Response): Promise<void> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  // No body, or an empty one that already arrived whole: nothing holds the connection.
  if (!response.body || length === 0) return
  if (length <= READ_TO_RELEASE) await response.arrayBuffer().catch(ignore)
  else await response.body.cancel().catch(ignore)
}

/**
 * Bridge transport for hosts without WebSockets: Server-Sent Events (server → page) and `POST`
 * (page → server), both same-origin.
 *
 * - Inbound: one `EventSource` on `streamUrl`. The server's first event, `ready`, names its page
 *   connection (`{ "stream": id }`); each message event carries the protocol message as JSON text and
 *   the id `<stream>:<n>` (n counts up from 1). After a dropped connection the `EventSource`
 *   reconnects by itself with `Last-Event-ID`, and the server replays what followed (within its
 *   replay window); an event whose id this transport already had is dropped, so nothing is handed to
 *   the bridge twice. Events longer than 4 × 1048576 UTF-16 code units and non-JSON data are dropped;
 *   everything else is parsed once and handed to the bridge unvalidated.
 * - Outbound: `fetch(postUrl, { method: 'POST', credentials: 'same-origin', redirect: 'error' })` with
 *   JSON and the `X-Toolmark-Stream` header (a custom header: a cross-site form cannot send it, and
 *   a cross-site script cannot without a CORS preflight the server refuses), plus `headers()`. Sends
 *   wait for the first `ready`, then go one at a time in order; each `send` resolves when the server
 *   answered 2xx and rejects on a network failure, a redirect or any other status. An answer carrying
 *   `X-Toolmark-Retryable: 1` (the server did not handle the message) is retried first, up to
 *   {@link MAX_RETRIES} times with backoff, before the next message goes. At most 100 messages
 *   wait (as over WebSocket while disconnected); when the queue is full, a superseded `manifest`/`changed`
 *   gives way first (its send resolves: the later one carries its news), then the oldest other non-terminal
 *   message (possibly the incoming one), and only then the oldest `result`/`confirmed`; a send that gave
 *   way for any other reason than being superseded rejects (the bridge reports `transport_failed`).
 * - When the `EventSource` gives up (the server refused the stream: no session, not your
 *   conversation, a foreign origin), the transport stops: `onError` gets the reason, queued sends
 *   reject, and later sends throw.
 *
 * Throws a `TypeError` at construction when no `EventSource` is available, or when a URL is not
 * same-origin with `baseUrl` (default `location.href`), is not http(s), is relative with no base, or
 * carries credentials.
 */
export function httpTransport(options: HttpTransportOptions): HttpTransport {
  const Impl = options.EventSource ?? (globalThis as { EventSource?: EventSourceConstructorLike }).EventSource
  if (typeof Impl !== 'function') {
    throw new TypeError('httpTransport: no EventSource implementation; pass the `EventSource` option')
  }
  const base = options.baseUrl ?? globalThis.location?.href
  const streamUrl = sameOriginUrl('httpTransport: streamUrl', options.streamUrl, base)
  const postUrl = sameOriginUrl('httpTransport: postUrl', options.postUrl, base)
  const messageHandlers = listeners<unknown>()
  const errors = listeners<unknown>()
  const queue: Outgoing[] = []
  let stream: string | undefined
  let seen = 0
  let posting = false
  let stopped: Error | undefined

  const report = (error: unknown): void => errors.emit(error, ignore)

  const stop = (reason: Error, notify: boolean): void => {
    if (stopped) return
    stopped = reason
    source.close()
    for (const item of queue.splice(0)) item.reject(reason)
    messageHandlers.clear()
    if (notify) report(reason)
    errors.clear()
  }

  const pump = async (): Promise<void> => {
    if (posting) return
    posting = true
    while (stream !== undefined && queue.length > 0 && !stopped) {
      const item = queue.shift() as Outgoing
      for (let retries = 0; ; retries++) {
        const failure = await post(item.body, retries)
        if (failure !== true) {
          if (failure) item.reject(failure)
          else item.resolve()
          break
        }
        // The server did not handle it (it could not find the stream just now): the same message again, later.
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** retries))
        if (stopped) {
          item.reject(stopped)
          break
        }
      }
    }
    posting = false
  }

  /** One POST: undefined when answered 2xx, true when the answer is marked retryable (retries left), else the error. */
  const post = async (body: string, retries: number): Promise<Error | true | undefined> => {
    try {
      const response = await fetch(postUrl, {
        method: 'POST',
        credentials: 'same-origin',
        redirect: 'error',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          [STREAM_HEADER]: stream as string,
          ...options.headers?.(),
        },
        body,
      })
      await release(response)
      if (response.ok) return undefined
      if (response.headers.get(RETRYABLE_HEADER) === '1' && retries < MAX_RETRIES) return true
      return new Error(`httpTransport: POST ${postUrl} answered HTTP ${response.status}`)
    } catch (error) {
      return new Error(`httpTransport: POST ${postUrl} failed`, { cause: error })
    }
  }

  const source = new Impl(streamUrl)
  source.addEventListener(READY_EVENT, (event) => {
    if (stopped) return
    let id: unknown
    try {
      id = (JSON.parse(String(event.data)) as { stream?: unknown }).stream
    } catch {}
    if (typeof id !== 'string' || id === '') return
    stream = id
    seen = 0
    void pump()
  })
  source.addEventListener('message', (event) => {
    if (stopped) return
    const at = event.lastEventId.lastIndexOf(':')
    const n = Number(event.lastEventId.slice(at + 1))
    if (at < 0 || event.lastEventId.slice(0, at) !== stream || !(n > seen)) return
    seen = n
    const data = event.data
    if (typeof data !== 'string' || data.length > MAX_EVENT_LENGTH) return
    let message: unknown
    try {
      message = JSON.parse(data)
    } catch {
      return
    }
    messageHandlers.emit(message, report)
  })
  source.addEventListener('error', (event) => {
    if (stopped || source.readyState !== CLOSED) return
    stop(new Error('httpTransport: the event stream was refused or failed for good', { cause: event }), true)
  })

  return {
    send(message) {
      if (stopped) throw new Error('httpTransport: transport stopped', { cause: stopped })
      const body = JSON.stringify(message)
      if (typeof body !== 'string') throw new TypeError('httpTransport: message is not JSON-serializable')
      return new Promise<void>((resolve, reject) => {
        const item: Outgoing = { body, resolve, reject, ...labelOf(message) }
        if (queue.length >= MAX_BUFFERED_MESSAGES) {
          const { index, superseded } = giveWay(queue, item)
          const full = (label: string) =>
            new Error(
              `httpTransport: outgoing queue full (${MAX_BUFFERED_MESSAGES} messages waiting); dropped a queued ${label}`,
            )
          if (index < 0) return reject(full(item.label))
          const [evicted] = queue.splice(index, 1) as [Outgoing]
          if (superseded) evicted.resolve()
          else evicted.reject(full(evicted.label))
        }
        queue.push(item)
        void pump()
      })
    },
    onMessage: messageHandlers.add,
    onError: errors.add,
    close() {
      stop(new Error('httpTransport: closed'), false)
    },
  }
}

function ignore(): void {}
