import type { EventSourceMessage } from 'eventsource-parser'
import WebSocket from 'ws'
import { readEvents } from './http-client.ts'
import type { TestServer } from './test-server.ts'

/* How a test page reaches the server: a raw WebSocket, or the HTTP transport's event stream and POSTs. */

/** Opens a socket like the page does; resolves once open, or with the close code when refused. */
export function openSocket(
  url: string,
  options: { cookie?: string; conversation: string; origin?: string },
): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const headers: Record<string, string> = {}
  if (options.cookie) headers.cookie = options.cookie
  if (options.origin) headers.origin = options.origin
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${options.conversation}`, {
    headers,
  })
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, closed }))
    ws.once('error', reject)
  })
}

/**
 * Resolves once the servers handled everything sent on a raw socket so far: the pong (ordered after every
 * frame before the ping) proves it arrived, `settled()` that every instance handled it.
 */
export async function flushSocket(t: Pick<TestServer, 'settled'>, ws: WebSocket): Promise<void> {
  await new Promise<void>((resolve) => {
    ws.once('pong', () => resolve())
    ws.ping()
  })
  await t.settled()
}

/** The two ways a page reaches the server: one WebSocket, or an SSE stream plus POSTs. */
export type Transport = 'websocket' | 'http'
/** Every transport, for `describe.each`: a suite that runs over both holds the server to one set of rules. */
export const TRANSPORTS: readonly Transport[] = ['websocket', 'http']

/** What a fake page needs from its connection, whichever the transport. */
export interface PageLink {
  send(text: string): void
  /** Resolves once the server has handled everything sent so far. */
  flush(): Promise<void>
  close(): Promise<void>
  onMessage(handler: (text: string) => void): void
}

export class WebSocketLink implements PageLink {
  constructor(readonly ws: WebSocket) {}
  send(text: string): void {
    this.ws.send(text)
  }
  flush(): Promise<void> {
    // ping/pong is ordered after every frame sent before it
    return new Promise((resolve) => {
      this.ws.once('pong', () => resolve())
      this.ws.ping()
    })
  }
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return
    const done = new Promise((resolve) => this.ws.once('close', resolve))
    this.ws.close()
    await done
  }
  onMessage(handler: (text: string) => void): void {
    this.ws.on('message', (data) => handler(String(data)))
  }
}

/** A page over the HTTP transport: the SSE stream read with `eventsource-parser`, POSTs one at a time. */
export class HttpLink implements PageLink {
  /** The status of every POST, in order. */
  readonly statuses: number[] = []
  /** Where the POSTs go: the stream's server unless a test points them at another instance. */
  postTo: string
  #chain: Promise<void> = Promise.resolve()
  #handlers: Array<(text: string) => void> = []
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>
  /** The id of the latest event, as an `EventSource` keeps it for its `Last-Event-ID`. */
  lastEventId: string

  private constructor(
    readonly url: string,
    readonly cookie: string | undefined,
    /** The page connection; a `ready` on a resumed stream (the server started a new one) replaces it. */
    public stream: string,
    events: AsyncGenerator<EventSourceMessage>,
    readonly abort: AbortController,
    lastEventId: string,
  ) {
    this.postTo = url
    this.lastEventId = lastEventId
    this.ended = (async () => {
      try {
        for await (const event of events) {
          if (event.id !== undefined) this.lastEventId = event.id
          if (event.event === 'ready') this.stream = (JSON.parse(event.data) as { stream: string }).stream
          else if (event.event === undefined) for (const h of this.#handlers) h(event.data)
        }
      } catch {}
    })()
  }

  /**
   * Opens the event stream; the HTTP status when the server refuses it. With `lastEventId`, resumes it as an
   * `EventSource` does after a drop (`Last-Event-ID`).
   */
  static async open(
    url: string,
    options: { cookie?: string; conversation: string; origin?: string; lastEventId?: string },
  ): Promise<HttpLink | number> {
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    if (options.cookie) headers.cookie = options.cookie
    if (options.origin) headers.origin = options.origin
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId
    const abort = new AbortController()
    const response = await fetch(`${url}/toolmark/events?conversation=${options.conversation}`, {
      headers,
      signal: abort.signal,
    })
    if (!response.ok || !response.body) {
      await response.body?.cancel()
      return response.status
    }
    const events = readEvents(response.body)
    if (options.lastEventId) {
      const stream = options.lastEventId.slice(0, options.lastEventId.lastIndexOf(':'))
      return new HttpLink(url, options.cookie, stream, events, abort, options.lastEventId)
    }
    const ready = (await events.next()).value as EventSourceMessage | undefined
    if (ready?.event !== 'ready') throw new Error('the stream did not start with a ready event')
    const { stream } = JSON.parse(ready.data) as { stream: string }
    return new HttpLink(url, options.cookie, stream, events, abort, ready.id ?? `${stream}:0`)
  }

  send(text: string): void {
    this.#chain = this.#chain.then(async () => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-toolmark-stream': this.stream,
      }
      if (this.cookie) headers.cookie = this.cookie
      const response = await fetch(`${this.postTo}/toolmark/messages`, {
        method: 'POST',
        headers,
        body: text,
      })
      await response.body?.cancel()
      this.statuses.push(response.status)
    })
    // A POST still on its way when the test ends fails with the closing server: that is reported by the
    // next `flush()`, never as an unhandled rejection.
    this.#chain.catch(() => {})
  }
  flush(): Promise<void> {
    // each POST is answered after the relay (of the stream's instance) handled it
    return this.#chain
  }
  async close(): Promise<void> {
    this.abort.abort()
    await this.ended
  }
  onMessage(handler: (text: string) => void): void {
    this.#handlers.push(handler)
  }
}

/**
 * Opens a page connection and reports how the server refused it, in WebSocket close codes: an HTTP
 * stream refused with 401 or 403 counts as 4401 or 4403 (the page's transport stops on either).
 * 0 when the connection was accepted.
 */
export async function refusal(
  transport: Transport,
  url: string,
  options: { cookie?: string; conversation: string; origin?: string },
): Promise<number> {
  if (transport === 'websocket') return (await openSocket(url, options)).closed
  const link = await HttpLink.open(url, options)
  if (typeof link === 'number') return link === 401 || link === 403 ? 4000 + link : link
  await link.close()
  return 0
}
