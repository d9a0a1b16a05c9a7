import {
  type AgentConversation,
  type ChatSnapshot,
  type ConversationBody,
  chatState,
} from '@toolmark/bridge/chat'
import { externalStore, type ReactiveStore } from '../store.js'

/** Options of {@link agentChat}. */
export interface AgentChatOptions {
  /** The conversation when the page already opened it (with its messages): the chat starts with them. */
  initial?: ConversationBody
}

/** What {@link agentChat} returns: a store of the chat (`$chat`, or `chat.current`) plus `send`. */
export interface AgentChatStore extends ReactiveStore<ChatSnapshot> {
  /**
   * Sends `text` (trimmed; blank text sends nothing). Resolves `true` once the server took it, `false`
   * when it refused (then `error` says why) or the conversation is not open.
   */
  send(text: string): Promise<boolean>
}

/**
 * The chat with the agent of a `@toolmark/server` as a store: while someone reads it (never on the server)
 * it opens the conversation, reads its history and follows its event stream (the reply as it streams, the
 * page calls as they run, the busy flag); it stops when the last reader leaves. Confirmation cards come
 * from `usePendingConfirmations()`; `<AgentChat>` from `@toolmark/svelte/chat` shows both. Built on
 * `chatState` from `@toolmark/bridge/chat`.
 */
export function agentChat(conversation: AgentConversation, options: AgentChatOptions = {}): AgentChatStore {
  const state = chatState(conversation, options.initial ? { initial: options.initial } : {})
  const store = externalStore(state.get, state.subscribe)
  return {
    subscribe: store.subscribe,
    get current() {
      return store.current
    },
    send: state.send,
  }
}
