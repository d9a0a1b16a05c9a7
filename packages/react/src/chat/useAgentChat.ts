'use client'
import { useCallback, useEffect, useState } from 'react'
import type { AgentConversation, ChatMessage, ConversationBody, ToolPart } from './conversation.ts'

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
  /**
   * Sends `text` (trimmed; blank text sends nothing). Resolves `true` once the server took it, `false`
   * when it refused (then `error` says why) or the conversation is not open.
   */
  send(text: string): Promise<boolean>
}

/** An assistant message as it streams. */
export interface StreamingMessage {
  /** The id its complete message will have. */
  id: string
  /** The masked text so far. */
  text: string
}

/** `parts` with `part` in it: a known call takes the new state in place, a new one goes last. */
export function mergePart(parts: readonly ToolPart[], part: ToolPart): ToolPart[] {
  const at = parts.findIndex((p) => p.callId === part.callId)
  if (at < 0) return [...parts, part]
  const next = [...parts]
  next[at] = part
  return next
}

const partsOf = (messages: readonly ChatMessage[]): ToolPart[] =>
  messages.reduce<ToolPart[]>((parts, m) => (m.part ? mergePart(parts, m.part) : parts), [])

/** Adds `message` unless a message with its id is there already; keeps time order. */
export function mergeMessage(messages: readonly ChatMessage[], message: ChatMessage): ChatMessage[] {
  if (messages.some((m) => m.id === message.id)) return messages as ChatMessage[]
  return [...messages, message].sort((a, b) => a.at - b.at)
}

const reason = (cause: unknown, fallback: string): string =>
  cause instanceof Error && cause.message !== '' ? cause.message : fallback

/**
 * The chat with the agent of a `@toolmark/server`: opens the conversation (or starts from `initial`),
 * reads its history, follows its event stream (new messages, the reply as it streams, the page calls as they
 * run, and the busy flag; after each reconnection
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
  const [streaming, setStreaming] = useState<StreamingMessage>()
  const [tools, setTools] = useState<ToolPart[]>(() => partsOf(initial?.messages ?? []))
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
        setTools((current) => partsOf(body.messages).reduce(mergePart, current))
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
      // A (re)opened stream starts a message in progress over with its text so far.
      setStreaming(undefined)
      conversation.load(id).then(
        (body) => {
          if (!live || !body) return
          setMessages((current) => body.messages.reduce(mergeMessage, current))
          setTools((current) => partsOf(body.messages).reduce(mergePart, current))
        },
        () => {},
      )
    }
    const close = conversation.subscribe(
      id,
      (event) => {
        switch (event.type) {
          case 'busy':
            setBusy(event.busy)
            if (!event.busy) setStreaming(undefined)
            return
          case 'text-delta':
            setStreaming((current) =>
              current?.id === event.messageId
                ? { id: current.id, text: current.text + event.delta }
                : { id: event.messageId, text: event.delta },
            )
            return
          case 'tool':
            setTools((current) => mergePart(current, event.part))
            return
          case 'message': {
            const { message } = event
            setMessages((current) => mergeMessage(current, message))
            if (message.part) setTools((current) => mergePart(current, message.part!))
            setStreaming((current) => (current?.id === message.id ? undefined : current))
          }
        }
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
    streaming,
    tools,
    error: error ?? failed,
    sentAt,
    send,
  }
}
