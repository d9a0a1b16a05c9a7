/** What a request over one of the server's caps is refused with (see docs/security.md). */
export type LimitCode =
  | 'too_many_connections'
  | 'too_many_streams'
  | 'too_many_turns'
  | 'too_many_conversations'

/**
 * Thrown when one user is over a cap of the server: the HTTP layer answers it with 429 and its code (a socket is
 * closed with 1013, try again later). Other users are not affected: every cap counts per user.
 */
export class LimitExceeded extends Error {
  constructor(
    readonly code: LimitCode,
    message: string,
    /** Seconds after which trying again makes sense (the `Retry-After` header); undefined: waiting does not help. */
    readonly retryAfter?: number,
  ) {
    super(message)
    this.name = 'LimitExceeded'
  }
}

/** Counts what each user holds at once (streams, sockets, queued turns) against one cap. */
export class PerUser {
  readonly #counts = new Map<string, number>()

  constructor(
    /** Most held at once per user. */
    readonly max: number,
  ) {}

  /** How many `userId` holds now. */
  count(userId: string): number {
    return this.#counts.get(userId) ?? 0
  }

  /** Takes one for `userId` and returns its release (safe to call twice), or undefined at the cap. */
  take(userId: string): (() => void) | undefined {
    const held = this.count(userId)
    if (held >= this.max) return undefined
    this.#counts.set(userId, held + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = this.count(userId) - 1
      if (left > 0) this.#counts.set(userId, left)
      else this.#counts.delete(userId)
    }
  }
}

/** Default of the server option `maxPageConnectionsPerUser`: sockets and HTTP page streams of one user at once. */
export const MAX_PAGE_CONNECTIONS_PER_USER = 16
/** Default of the server option `maxChatStreamsPerUser`: chat event streams of one user at once. */
export const MAX_CHAT_STREAMS_PER_USER = 16
/** Default of the server option `maxConversationsPerUser`: conversations one user (or demo session) may create. */
export const MAX_CONVERSATIONS_PER_USER = 1000
/** Default of the server option `maxQueuedTurnsPerUser`: agent turns of one user's messages queued or running. */
export const MAX_QUEUED_TURNS_PER_USER = 8

/** Most events an SSE stream may hold unwritten (its reader does not read): past it, the stream is cut off. */
export const MAX_UNSENT_EVENTS = 1024
