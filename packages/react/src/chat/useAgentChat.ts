'use client'
import {
  type AgentConversation,
  type ChatSnapshot,
  type ConversationBody,
  chatState,
} from '@toolmark/bridge/chat'
import { useMemo, useSyncExternalStore } from 'react'

export { mergeMessage, mergePart, type StreamingMessage } from '@toolmark/bridge/chat'

/** Options of {@link useAgentChat}. */
export interface UseAgentChatOptions {
  /** The conversation when the page already opened it (with its messages): the chat starts with them. */
  initial?: ConversationBody
}

/** What {@link useAgentChat} returns: the chat's snapshot (see `ChatSnapshot`) and `send`. */
export interface AgentChatState extends ChatSnapshot {
  /**
   * Sends `text` (trimmed; blank text sends nothing). Resolves `true` once the server took it, `false`
   * when it refused (then `error` says why) or the conversation is not open.
   */
  send(text: string): Promise<boolean>
}

/**
 * The chat with the agent of a `@toolmark/server`: opens the conversation (or starts from `initial`),
 * reads its history, follows its event stream (new messages, the reply as it streams, the page calls as they
 * run, and the busy flag; after each reconnection it reads the history again, so nothing is missed) and
 * sends the user's messages. Nothing runs on the server: the conversation is opened once the component
 * mounts. Confirmation cards come from `usePendingConfirmations()`; `<AgentChat>` shows both. Built on
 * `chatState` from `@toolmark/bridge/chat`.
 */
export function useAgentChat(
  conversation: AgentConversation,
  options: UseAgentChatOptions = {},
): AgentChatState {
  const { initial } = options
  const state = useMemo(() => chatState(conversation, initial ? { initial } : {}), [conversation, initial])
  const snapshot = useSyncExternalStore(state.subscribe, state.get, state.get)
  return { ...snapshot, send: state.send }
}
