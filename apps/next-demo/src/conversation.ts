import { type ChatMessage, ensureConversation } from '../../demo/src/chat/api.ts'

/** The conversation this tab talks in, with its history. */
export interface Conversation {
  id: string
  messages: ChatMessage[]
}

let current: Promise<Conversation> | undefined

/**
 * The tab's conversation (kept in localStorage across reloads), fetched once per page load. Browser
 * only: it is first called from effects, never during server rendering.
 */
export function conversation(): Promise<Conversation> {
  current ??= ensureConversation()
  current.catch(() => {
    current = undefined
  })
  return current
}
