import { usePendingConfirmations } from '@toolmark/react'
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react'
import { type ChatMessage, fetchConversation, sendMessage, subscribeToConversation } from './api.ts'
import { ConfirmCard } from './ConfirmCard.tsx'

/** Things to type that show each feature of the demo. */
export const SUGGESTIONS = [
  'Search for chess',
  'Create a challenge called Robotics',
  'Delete the challenge Marathon Training',
  'What do the notes of Chess Openings say?',
  'Go to settings',
] as const

const ROLE_LABEL: Record<ChatMessage['role'], string> = { user: 'You', assistant: 'Agent', tool: 'Tool' }

/** Adds `message` unless a message with its id is already there; keeps time order. */
function merge(messages: ChatMessage[], message: ChatMessage): ChatMessage[] {
  if (messages.some((m) => m.id === message.id)) return messages
  return [...messages, message].sort((a, b) => a.at - b.at)
}

/**
 * The chat with the server's agent: history from GET, new messages and the busy flag from the event
 * stream, and the page's pending confirmations as cards below the last message.
 */
export function ChatPanel(props: {
  conversationId: string
  initialMessages: readonly ChatMessage[]
}): ReactNode {
  const { conversationId } = props
  const [messages, setMessages] = useState<ChatMessage[]>(() => [...props.initialMessages])
  const [busy, setBusy] = useState(false)
  const [text, setText] = useState('')
  const [error, setError] = useState<string>()
  const pending = usePendingConfirmations().items
  const logRef = useRef<HTMLOListElement>(null)

  useEffect(() => {
    let live = true
    const catchUp = (): void => {
      fetchConversation(conversationId).then(
        (conversation) => {
          if (!live || !conversation) return
          setMessages((current) => conversation.messages.reduce(merge, current))
        },
        () => {},
      )
    }
    const close = subscribeToConversation(
      conversationId,
      (event) => {
        if (event.type === 'busy') setBusy(event.busy)
        else setMessages((current) => merge(current, event.message))
      },
      catchUp,
    )
    return () => {
      live = false
      close()
    }
  }, [conversationId])

  const count = messages.length + pending.length
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll whenever the number of entries changes.
  useEffect(() => {
    logRef.current?.lastElementChild?.scrollIntoView?.({ block: 'end' })
  }, [count])

  const send = async (event?: FormEvent, value = text): Promise<void> => {
    event?.preventDefault()
    const trimmed = value.trim()
    if (!trimmed) return
    setText('')
    try {
      await sendMessage(conversationId, trimmed)
      setError(undefined)
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : 'Message not sent')
      setText(trimmed)
    }
  }

  return (
    <aside className="chat" aria-label="Chat with the agent">
      <h2>Agent</h2>
      <ol className="chat-log" data-testid="chat-log" ref={logRef}>
        {messages.map((message) => (
          <li
            key={message.id}
            className={`chat-message ${message.role}`}
            data-testid="chat-message"
            data-role={message.role}
          >
            <span className="who">{ROLE_LABEL[message.role]}</span>
            <span className="text">{message.text}</span>
          </li>
        ))}
        {pending.map((entry) => (
          <li key={entry.confirmId} className="chat-card">
            <ConfirmCard confirmation={entry} />
          </li>
        ))}
        {messages.length === 0 && pending.length === 0 && (
          <li className="chat-empty">
            Ask the agent to do something on this page. Try:
            <span className="suggestions">
              {SUGGESTIONS.map((suggestion) => (
                <button
                  type="button"
                  className="chip"
                  key={suggestion}
                  onClick={() => send(undefined, suggestion)}
                >
                  {suggestion}
                </button>
              ))}
            </span>
          </li>
        )}
      </ol>
      {busy && (
        <p className="busy" data-testid="chat-busy">
          The agent is working…
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <form className="chat-form" onSubmit={send}>
        <input
          data-testid="chat-input"
          aria-label="Message"
          placeholder="Ask the agent…"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" data-testid="chat-send">
          Send
        </button>
      </form>
    </aside>
  )
}
