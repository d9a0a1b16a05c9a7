'use client'
import { type FormEvent, type ReactNode, useRef, useState } from 'react'
import { ConfirmationCard } from '../ConfirmationCard.tsx'
import { usePendingConfirmations } from '../usePendingConfirmations.ts'
import { type AgentConversation, type ChatMessage, MAX_MESSAGE_LENGTH } from './conversation.ts'
import { useAgentChat } from './useAgentChat.ts'

/** Props of {@link AgentChat}. */
export interface AgentChatProps {
  /** The tab's conversation: the same object the bridge's `connect` opens. */
  conversation: AgentConversation
  /** The chat's accessible name. Default "Chat with the agent". */
  label?: string
}

const WHO: Record<ChatMessage['role'], string> = { user: 'You', assistant: 'Agent', tool: 'Tool' }

/**
 * A small unstyled chat with the agent, built on {@link useAgentChat} and `usePendingConfirmations()`:
 * the messages (yours, the agent's, and a line for each tool it used), the page's confirmation cards
 * with Reject and Approve, a "working" line while the agent works, and a message field with Send.
 * Keyboard: Enter sends; a card that answers the message just sent takes focus on Reject, Escape inside
 * a card rejects it, and focus goes back to the field when the card settles. Must sit inside the
 * `ToolmarkProvider` whose bridge talks in the same conversation. Copy it or use it.
 */
export function AgentChat({ conversation, label = 'Chat with the agent' }: AgentChatProps): ReactNode {
  const chat = useAgentChat(conversation)
  const pending = usePendingConfirmations().items
  const [text, setText] = useState('')
  const input = useRef<HTMLInputElement>(null)

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault()
    const value = text
    if (value.trim() === '') return
    setText('')
    input.current?.focus()
    // A refused message comes back into the field, so nothing typed is lost.
    if (!(await chat.send(value))) setText((current) => (current === '' ? value : current))
  }

  return (
    <section aria-label={label} data-toolmark-chat="" data-status={chat.status}>
      <ol data-toolmark-chat-log="">
        {chat.messages.map((message) => (
          <li key={message.id} data-role={message.role} data-testid="agent-chat-message">
            <strong>{WHO[message.role]}: </strong>
            <span>{message.text}</span>
          </li>
        ))}
        {pending.map((item) => (
          <li key={item.confirmId}>
            <ConfirmationCard
              confirmation={item}
              autoFocus={chat.sentAt !== undefined && item.createdAt >= chat.sentAt}
            />
          </li>
        ))}
      </ol>
      {chat.busy && <p role="status">The agent is working…</p>}
      {chat.error !== undefined && <p role="alert">{chat.error}</p>}
      <form onSubmit={submit}>
        <input
          ref={input}
          aria-label="Message"
          placeholder="Ask the agent…"
          maxLength={MAX_MESSAGE_LENGTH}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" disabled={text.trim() === '' || chat.status !== 'ready'}>
          Send
        </button>
      </form>
    </section>
  )
}
