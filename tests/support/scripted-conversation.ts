import type {
  AgentConversation,
  ChatEvent,
  ChatMessage,
  ConversationBody,
} from '../../packages/bridge/src/chat/index.ts'

/**
 * An `AgentConversation` driven by the test, for the chats built on `chatState` (React, Vue, Svelte): the
 * server's history, what was sent, and the open event stream, which the test feeds with `emit` and reopens
 * with `reconnect`. The real HTTP client (`agentConversation`) has its own tests against a server.
 */
export class ScriptedConversation implements AgentConversation {
  readonly api = '/api'
  history: ChatMessage[] = []
  sent: string[] = []
  opened = 0
  /** When set, `send` rejects with this message (the server refused it). */
  refuse: string | undefined
  /** When set, `open` rejects with this message. */
  failOpen: string | undefined
  #listeners = new Set<{ onEvent: (event: ChatEvent) => void; onOpen?: () => void }>()

  constructor(readonly id = 'c1') {}

  /** How many event streams are open now. */
  get streams(): number {
    return this.#listeners.size
  }

  async open(): Promise<ConversationBody> {
    this.opened++
    if (this.failOpen !== undefined) throw new Error(this.failOpen)
    return { id: this.id, messages: [...this.history] }
  }

  async load(id: string): Promise<ConversationBody | undefined> {
    return id === this.id ? { id, messages: [...this.history] } : undefined
  }

  async send(_id: string, text: string): Promise<void> {
    if (this.refuse !== undefined) throw new Error(this.refuse)
    this.sent.push(text)
  }

  subscribe(_id: string, onEvent: (event: ChatEvent) => void, onOpen?: () => void): () => void {
    const listener = onOpen ? { onEvent, onOpen } : { onEvent }
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Delivers one event to every open stream. */
  emit(event: ChatEvent): void {
    for (const l of [...this.#listeners]) l.onEvent(event)
  }

  /** Every open stream reconnects (its `onOpen` runs). */
  reconnect(): void {
    for (const l of [...this.#listeners]) l.onOpen?.()
  }
}

/** A chat line. */
export const line = (id: string, role: ChatMessage['role'], text: string, at: number): ChatMessage => ({
  id,
  role,
  text,
  at,
})
