import type { ConversationBody } from '@toolmark/react/chat'
import { demoConversation } from '../../demo/src/chat/api.ts'

/** The conversation this tab talks in, with its history. */
export type Conversation = ConversationBody

/**
 * The tab's conversation (kept in localStorage across reloads), asked once per page load and shared by
 * the bridge and the chat; a failed attempt is asked again. Browser only: it is first called from
 * effects, never during server rendering.
 */
export function conversation(): Promise<Conversation> {
  return demoConversation.open()
}
