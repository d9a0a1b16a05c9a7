import type { Hono } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import type { ConversationEvents } from '../agent/events.ts'
import type { Agent } from '../agent/loop.ts'
import type { ChatEvent } from '../shared/contract.ts'
import { LimitExceeded, MAX_CHAT_STREAMS_PER_USER, MAX_UNSENT_EVENTS, PerUser } from '../shared/limits.ts'
import type { Conversation } from '../store/store.ts'
import type { Own } from './conversations.ts'
import { NOT_FOUND } from './conversations.ts'
import { fail, tooMany } from './errors.ts'
import type { SessionEnv } from './session.ts'

/** What the chat event stream needs. */
export interface ChatStreamDeps {
  agent: Agent
  events: ConversationEvents
  own: Own
  /** Milliseconds between SSE keep-alive comments. Default 15 000. */
  keepAliveMs?: number | undefined
  /** Most chat event streams one user holds open at once (429 `too_many_streams` past it). Default 16. */
  maxChatStreamsPerUser?: number | undefined
  /** The streams open now, each as the function that ends it: the server's `close()` ends them all. */
  open: Set<() => void>
}

/**
 * `GET /api/conversations/:id/events`: the conversation's chat events as server-sent events, starting
 * with a `busy` event, with keep-alive comments. Another user's conversation is 404; one stream over
 * the user's cap is 429 `too_many_streams` with `Retry-After`.
 */
export function chatStreamRoute(app: Hono<SessionEnv>, deps: ChatStreamDeps): void {
  const chatStreams = new PerUser(deps.maxChatStreamsPerUser ?? MAX_CHAT_STREAMS_PER_USER)
  const keepAliveMs = deps.keepAliveMs ?? 15_000
  app.get('/api/conversations/:id/events', async (c) => {
    const conversation = await deps.own(c, c.req.param('id'))
    if (!conversation) return fail(c, 404, NOT_FOUND.code, NOT_FOUND.message)
    const release = chatStreams.take(conversation.userId)
    if (!release) {
      const message = `Too many chat streams: at most ${chatStreams.max} per user; close a tab and try again`
      return tooMany(c, new LimitExceeded('too_many_streams', message, 10))
    }
    return streamSSE(c, (stream) => chatEvents(stream, conversation, release, deps, keepAliveMs))
  })
}

/** Writes one conversation's chat events to `stream` until the client goes, then releases its slot. */
async function chatEvents(
  stream: SSEStreamingApi,
  conversation: Conversation,
  release: () => void,
  deps: ChatStreamDeps,
  keepAliveMs: number,
): Promise<void> {
  const { agent, events, open } = deps
  stream.onAbort(release)
  // Ended by the server's close (a stream never ends by itself, and a graceful stop waits for it).
  let wake = () => {}
  const end = () => {
    wake()
    void stream.close()
  }
  open.add(end)
  let unsubscribe = () => {}
  try {
    let chain = Promise.resolve()
    let unsent = 0
    const write = (data: unknown) => {
      // A client that does not read its stream is cut off before it holds more than this (it may reconnect).
      if (++unsent > MAX_UNSENT_EVENTS) return void stream.abort()
      chain = chain
        .then(() => stream.writeSSE({ data: JSON.stringify(data) }))
        .catch(() => {})
        .then(() => {
          unsent--
        })
    }
    // A busy event delivered while the first answer was looked up is newer than that answer.
    let busySeen = false
    unsubscribe = events.subscribe(conversation.id, (event) => {
      if (event.type === 'busy') busySeen = true
      write(event)
    })
    stream.onAbort(unsubscribe)
    // Shared mode: the events of a turn on any instance reach this one before the stream says busy or not.
    const [busy] = await Promise.all([agent.busyAnywhere(conversation.id), events.watched(conversation.id)])
    if (!busySeen) write({ type: 'busy', busy } satisfies ChatEvent)
    while (!stream.aborted && !stream.closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, keepAliveMs)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      chain = chain
        .then(() => stream.write(': keep-alive\n\n'))
        .then(
          () => {},
          () => {},
        )
    }
  } finally {
    // Also when the set-up threw: the server's close no longer needs to end this stream.
    open.delete(end)
    unsubscribe()
    release()
  }
}
