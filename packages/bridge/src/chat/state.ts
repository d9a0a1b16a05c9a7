import type { AgentConversation, ChatEvent, ChatMessage, ConversationBody, ToolPart } from './conversation.ts'

/** Options of {@link chatState}. */
export interface ChatStateOptions {
  /** The conversation when the page already opened it (with its messages): the chat starts with them. */
  initial?: ConversationBody
}

/** An assistant message as it streams. */
export interface StreamingMessage {
  /** The id its complete message will have. */
  id: string
  /** The masked text so far. */
  text: string
}

/** What the chat shows at one moment. A new object on every change; never changed in place. */
export interface ChatSnapshot {
  /** `opening` until the conversation is known, then `ready`; `failed` when it could not be opened. */
  status: 'opening' | 'ready' | 'failed'
  /** The conversation's id once it is known. */
  conversationId: string | undefined
  /** The visible messages, oldest first, each once: history, then what the event stream brings. */
  messages: readonly ChatMessage[]
  /** True while the agent works on a turn (the server's `busy` events). */
  busy: boolean
  /**
   * The agent's message in progress, its masked text so far (`text-delta` events); `undefined` between
   * messages. The message itself replaces it in `messages` once it is complete.
   */
  streaming: StreamingMessage | undefined
  /**
   * The page calls the agent made, each once in its latest state, in the order they started: from the history's
   * tool lines, then the `tool` events.
   */
  tools: readonly ToolPart[]
  /** Why opening the conversation or the last message failed, in a sentence to show as is. */
  error: string | undefined
  /**
   * When this tab last sent a message (epoch milliseconds). A confirmation created after it answers
   * that message, so its card may take focus.
   */
  sentAt: number | undefined
}

/**
 * The chat with the agent of a `@toolmark/server`, outside any framework: a store that React, Vue and Svelte
 * adapters (or your own code) read. It starts when its first listener subscribes (opens the conversation,
 * reads its history, follows its event stream) and stops when its last listener leaves.
 */
export interface ChatState {
  /** The current snapshot. */
  get(): ChatSnapshot
  /** Calls `listener` after every change; returns a function that removes it. */
  subscribe(listener: () => void): () => void
  /**
   * Sends `text` (trimmed; blank text sends nothing). Resolves `true` once the server took it, `false`
   * when it refused (then `error` says why) or the conversation is not open.
   */
  send(text: string): Promise<boolean>
}

/** `parts` with `part` in it: a known call takes the new state in place, a new one goes last. */
export function mergePart(parts: readonly ToolPart[], part: ToolPart): ToolPart[] {
  const at = parts.findIndex((p) => p.callId === part.callId)
  if (at < 0) return [...parts, part]
  const next = [...parts]
  next[at] = part
  return next
}

/** Adds `message` unless a message with its id is there already; keeps time order. */
export function mergeMessage(messages: readonly ChatMessage[], message: ChatMessage): ChatMessage[] {
  if (messages.some((m) => m.id === message.id)) return messages as ChatMessage[]
  return [...messages, message].sort((a, b) => a.at - b.at)
}

const partsOf = (messages: readonly ChatMessage[]): ToolPart[] =>
  messages.reduce<ToolPart[]>((parts, m) => (m.part ? mergePart(parts, m.part) : parts), [])

const reason = (cause: unknown, fallback: string): string =>
  cause instanceof Error && cause.message !== '' ? cause.message : fallback

/** The snapshot after one event of the conversation's stream. */
function applyEvent(s: ChatSnapshot, event: ChatEvent): ChatSnapshot {
  switch (event.type) {
    case 'busy':
      return { ...s, busy: event.busy, streaming: event.busy ? s.streaming : undefined }
    case 'text-delta': {
      const current = s.streaming
      const streaming =
        current?.id === event.messageId
          ? { id: current.id, text: current.text + event.delta }
          : { id: event.messageId, text: event.delta }
      return { ...s, streaming }
    }
    case 'tool':
      return { ...s, tools: mergePart(s.tools, event.part) }
    case 'tool-progress': {
      const part = s.tools.find((p) => p.callId === event.callId)
      if (part?.state !== 'running') return s
      return { ...s, tools: mergePart(s.tools, { ...part, progress: event.progress }) }
    }
    case 'message': {
      const { message } = event
      return {
        ...s,
        messages: mergeMessage(s.messages, message),
        tools: message.part ? mergePart(s.tools, message.part) : s.tools,
        streaming: s.streaming?.id === message.id ? undefined : s.streaming,
      }
    }
    default:
      return s
  }
}

/**
 * The chat of `conversation` as a {@link ChatState} store. Nothing is sent until the first listener
 * subscribes, so creating one while rendering on the server is safe. After each reconnection of the event
 * stream it reads the history again, so nothing is missed.
 */
export function chatState(conversation: AgentConversation, options: ChatStateOptions = {}): ChatState {
  const { initial } = options
  let snapshot: ChatSnapshot = {
    status: initial ? 'ready' : 'opening',
    conversationId: initial?.id,
    messages: [...(initial?.messages ?? [])],
    busy: false,
    streaming: undefined,
    tools: partsOf(initial?.messages ?? []),
    error: undefined,
    sentAt: undefined,
  }
  let failed: string | undefined
  let refused: string | undefined
  const listeners = new Set<() => void>()
  let stop: (() => void) | undefined

  const set = (next: ChatSnapshot): void => {
    if (next === snapshot) return
    snapshot = next
    for (const listener of [...listeners]) listener()
  }
  const withBody = (s: ChatSnapshot, body: ConversationBody): ChatSnapshot => ({
    ...s,
    messages: body.messages.reduce(mergeMessage, s.messages as ChatMessage[]),
    tools: partsOf(body.messages).reduce(mergePart, s.tools as ToolPart[]),
  })

  const start = (): (() => void) => {
    let live = true
    let close: (() => void) | undefined
    const follow = (id: string): void => {
      close = conversation.subscribe(
        id,
        (event) => live && set(applyEvent(snapshot, event)),
        () => {
          if (!live) return
          // A (re)opened stream starts a message in progress over with its text so far.
          set({ ...snapshot, streaming: undefined })
          conversation.load(id).then(
            (body) => live && body && set(withBody(snapshot, body)),
            () => {},
          )
        },
      )
    }
    if (snapshot.conversationId !== undefined) follow(snapshot.conversationId)
    else
      conversation.open().then(
        (body) => {
          if (!live) return
          set(withBody({ ...snapshot, status: 'ready', conversationId: body.id }, body))
          follow(body.id)
        },
        (cause: unknown) => {
          if (!live) return
          failed = reason(cause, 'Could not start a conversation')
          set({ ...snapshot, status: 'failed', error: refused ?? failed })
        },
      )
    return () => {
      live = false
      close?.()
    }
  }

  return {
    get: () => snapshot,
    subscribe(listener) {
      listeners.add(listener)
      if (listeners.size === 1) stop = start()
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return
        stop?.()
        stop = undefined
      }
    },
    async send(text) {
      const trimmed = text.trim()
      const id = snapshot.conversationId
      if (trimmed === '' || id === undefined) return false
      set({ ...snapshot, sentAt: Date.now() })
      try {
        await conversation.send(id, trimmed)
        refused = undefined
        set({ ...snapshot, error: failed })
        return true
      } catch (cause) {
        refused = reason(cause, 'Message not sent')
        set({ ...snapshot, error: refused })
        return false
      }
    },
  }
}
