import {
  type AgentConversation,
  type ChatSnapshot,
  type ConversationBody,
  chatState,
} from '@toolmark/bridge/chat'
import { onScopeDispose, type ShallowRef, shallowRef } from 'vue'
import { onClientStart } from '../lifecycle.ts'

/** Options of {@link useAgentChat}. */
export interface UseAgentChatOptions {
  /** The conversation when the page already opened it (with its messages): the chat starts with them. */
  initial?: ConversationBody
}

/** What {@link useAgentChat} returns. */
export interface AgentChatState {
  /** The chat as it is now (see `ChatSnapshot`): a new object on every change. */
  chat: Readonly<ShallowRef<ChatSnapshot>>
  /**
   * Sends `text` (trimmed; blank text sends nothing). Resolves `true` once the server took it, `false`
   * when it refused (then `chat.value.error` says why) or the conversation is not open.
   */
  send(text: string): Promise<boolean>
}

/**
 * The chat with the agent of a `@toolmark/server` in a component: opens the conversation once the
 * component mounts (never while rendering on the server), reads its history, follows its event stream (the
 * reply as it streams, the page calls as they run, the busy flag) and stops when the component unmounts.
 * Confirmation cards come from `usePendingConfirmations()`; `<AgentChat>` from `@toolmark/vue/chat`
 * shows both. Built on `chatState` from `@toolmark/bridge/chat`.
 */
export function useAgentChat(
  conversation: AgentConversation,
  options: UseAgentChatOptions = {},
): AgentChatState {
  const state = chatState(conversation, options.initial ? { initial: options.initial } : {})
  const chat = shallowRef(state.get())
  let stop: (() => void) | undefined
  let disposed = false
  onClientStart(
    () => {
      if (disposed) return
      stop = state.subscribe(() => {
        chat.value = state.get()
      })
      chat.value = state.get()
    },
    'useAgentChat',
    false,
  )
  onScopeDispose(() => {
    disposed = true
    stop?.()
  })
  return { chat, send: state.send }
}
