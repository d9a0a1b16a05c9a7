import { agentConversation, type ConversationBody } from '@toolmark/react/chat'

export type { ChatEvent, ChatMessage } from '@toolmark/react/chat'
/** The longest message the agent server accepts, in UTF-16 code units (like `maxlength`). */
export { MAX_MESSAGE_LENGTH } from '@toolmark/react/chat'

/** localStorage key of the current conversation id (a full reload keeps the conversation). */
export const CONVERSATION_KEY = 'toolmark-demo:conversation'

/**
 * The tab's conversation with the agent server (`/api/conversations…`), kept in localStorage across
 * reloads: opened once by the boot (or the Next demo's provider), followed by the chat panel.
 */
export const demoConversation = agentConversation({ storageKey: CONVERSATION_KEY })

/**
 * The conversation to use: the one kept in localStorage when the server still knows it for this
 * session, else a new one.
 */
export function ensureConversation(): Promise<ConversationBody> {
  return demoConversation.open()
}
