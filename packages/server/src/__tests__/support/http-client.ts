import type { EventSourceMessage } from 'eventsource-parser'
import { EventSourceParserStream } from 'eventsource-parser/stream'

/* An HTTP client standing in for one browser, and the reader of event stream bodies. */

/** The events of a `text/event-stream` response body (parsed by `eventsource-parser`; comments skipped). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  // The cast bridges lib.dom's and Node's stream typings; at runtime it is Node's own TextDecoderStream.
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    reader.releaseLock()
  }
}

/** A cookie-keeping HTTP client standing in for one browser. */
export class Browser {
  cookie = ''
  /** Resolves once the servers handled what reached them (set by `TestServer.browser()`). */
  settled: () => Promise<void> = () => Promise.resolve()
  /** Resolves once no server connection carries the page load any more (set by `TestServer.browser()`). */
  gone: (clientId: string) => Promise<void> = () => Promise.resolve()
  constructor(readonly base: string) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookie) headers.set('cookie', this.cookie)
    const response = await fetch(this.base + path, { ...init, headers })
    const set = response.headers.get('set-cookie')
    if (set) this.cookie = set.split(';')[0]!
    return response
  }

  async createConversation(): Promise<string> {
    const response = await this.fetch('/api/conversations', { method: 'POST' })
    return ((await response.json()) as { id: string }).id
  }

  async say(conversation: string, text: string): Promise<Response> {
    return this.fetch(`/api/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    })
  }

  async messages(conversation: string): Promise<Array<{ role: string; text: string; tool?: string }>> {
    const response = await this.fetch(`/api/conversations/${conversation}`)
    return ((await response.json()) as { messages: Array<{ role: string; text: string; tool?: string }> })
      .messages
  }
}
