'use client'
import { useCallback, useEffect, useState } from 'react'
import type { AgentConversation, ChatMessage, ConversationBody } from './conversation.ts'

/** Options of {@link useAgentChat}. */
export interface UseAgentChatOptions {
  /** The conversation when the page already opened it (with its messages): the chat starts with them. */
  initial?: ConversationBody
}

/** What {@link useAgentChat} returns. */
export interface AgentChatState {
  /** `opening` until the conversation is known, then `ready`; `failed` when it could not be opened. */
  status: 'opening' | 'ready' | 'failed'
  /** The conversation's id once it is known. */
  conversationId: string | undefined
  /** The visible messages, oldest first, each once: history, then what the event stream brings. */
  messages: readonly ChatMessage[]
  /** True while the agent works on a turn (the server's `busy` events). */
  busy: boolean
  /** Why opening the conversation or the last message failed, in a sentence to show as is. */
  error: string | undefined
  /**
   * When this tab last sent a message (epoch milliseconds). A confirmation created after it answers
   * that message, so its card may take focus.
   */
  sentAt: number | undefined
  /**
   * Sends `text` (trimmed; blank text sends nothing). Resolves `true` once the server took it, `false`
   * when it refused (then `error` says why) or the conversation is not open.
   */
  send(text: string): Promise<boolean>
}

/** Adds `message` unless a message with its id is there already; keeps time order. */
export function mergeMessage(messages: readonly ChatMessage[], message: ChatMessage): ChatMessage[] {
  if (messages.some((m) => m.id === message.id)) return messages as ChatMessage[]
  return [...messages, message].sort((a, b) => a.at - b.at)
}

const reason = (cause: unknown, fallback: string): string =>
  cause instanceof Error && cause.message !== '' ? cause.message : fallback

/**
 * The chat with the agent of a `@toolmark/server`: opens the conversation (or starts from `initial`),
 * reads its history, follows its event stream (new messages and the busy flag; after each reconnection
 * it reads the history again, so nothing is missed) and sends the user's messages. Nothing runs on the
 * server: the conversation is opened in an effect. Confirmation cards come from
 * `usePendingConfirmations()`; `<AgentChat>` shows both.
 */
export function useAgentChat(
  conversation: AgentConversation,
  options: UseAgentChatOptions = {},
): AgentChatState {
  const { initial } = options
  const [opened, setOpened] = useState<ConversationBody | undefined>(initial)
  const [failed, setFailed] = useState<string>()
  const [messages, setMessages] = useState<ChatMessage[]>(() => [...(initial?.messages ?? [])])
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [sentAt, setSentAt] = useState<number>()
  const id = opened?.id

  useEffect(() => {
    if (initial) return
    let live = true
    conversation.open().then(
      (body) => {
        if (!live) return
        setOpened(body)
        setMessages((current) => body.messages.reduce(mergeMessage, current))
      },
      (cause: unknown) => live && setFailed(reason(cause, 'Could not start a conversation')),
    )
    return () => {
      live = false
    }
  }, [conversation, initial])

  useEffect(() => {
    if (id === undefined) return
    let live = true
    const catchUp = (): void => {
      conversation.load(id).then(
        (body) => live && body && setMessages((current) => body.messages.reduce(mergeMessage, current)),
        () => {},
      )
    }
    const close = conversation.subscribe(
      id,
      (event) => {
        if (event.type === 'busy') setBusy(event.busy)
        else setMessages((current) => mergeMessage(current, event.message))
      },
      catchUp,
    )
    return () => {
      live = false
      close()
    }
  }, [conversation, id])

  const send = useCallback(
    async (text: string): Promise<boolean> => {
      const trimmed = text.trim()
      if (trimmed === '' || id === undefined) return false
      setSentAt(Date.now())
      try {
        await conversation.send(id, trimmed)
        setError(undefined)
        return true
      } catch (cause) {
        setError(reason(cause, 'Message not sent'))
        return false
      }
    },
    [conversation, id],
  )

  return {
    status: id !== undefined ? 'ready' : failed !== undefined ? 'failed' : 'opening',
    conversationId: id,
    messages,
    busy,
    error: error ?? failed,
    sentAt,
    send,
  }
}
