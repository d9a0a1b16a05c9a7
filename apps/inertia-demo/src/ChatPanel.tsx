import { xsrfToken } from '@toolmark/bridge/echo'
import { usePendingConfirmations } from '@toolmark/react'
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react'
// The same card as the other two demos (apps/demo, apps/next-demo), with their styles.
import { ChatComposer } from '../../demo/src/chat/ChatComposer.tsx'
import { ConfirmCard } from '../../demo/src/chat/ConfirmCard.tsx'
import type { ChatLine } from './chat.ts'

/** Things to type that show each feature of this demo (its Challenges page has list, create and delete). */
export const SUGGESTIONS = [
  'List the challenges',
  'Create a challenge called Robotics',
  'Go to settings',
] as const

/** Laravel's limit for one message (ChatController validates `max:4000`). */
export const MAX_MESSAGE_LENGTH = 4000

const ROLE_LABEL: Record<ChatLine['role'], string> = { user: 'You', assistant: 'Agent', tool: 'Tool' }

/**
 * The chat with the Laravel agent, laid out as in the other two demos: the lines, the page's pending
 * confirmations as cards below the last one, suggestions while it is empty, and the input. Messages are
 * POSTed to `/conversations/{id}/messages`; the lines come from `useChat`.
 */
export function ChatPanel(props: { conversationId: number | null; lines: readonly ChatLine[] }): ReactNode {
  const { conversationId, lines } = props
  const pending = usePendingConfirmations().items
  const [text, setText] = useState('')
  const [error, setError] = useState<string>()
  // A card created after the user last sent a message from this tab answers it, so it takes focus.
  const [sentAt, setSentAt] = useState<number>()
  const logRef = useRef<HTMLOListElement>(null)
  const inputRef = useRef<HTMLInputElement>(null)

  const entries = lines.length + pending.length
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll whenever the number of entries changes.
  useEffect(() => {
    logRef.current?.lastElementChild?.scrollIntoView?.({ block: 'end' })
  }, [entries])

  const send = async (event?: FormEvent, value = text): Promise<void> => {
    event?.preventDefault()
    const trimmed = value.trim()
    if (!trimmed || conversationId === null) return
    setText('')
    setSentAt(Date.now())
    inputRef.current?.focus()
    const response = await fetch(`/conversations/${conversationId}/messages`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'X-Requested-With': 'XMLHttpRequest',
        'X-XSRF-TOKEN': xsrfToken(),
      },
      body: JSON.stringify({ text: trimmed }),
    }).catch(() => undefined)
    if (response?.ok) {
      setError(undefined)
    } else {
      setError(`Message not sent (${response ? `HTTP ${response.status}` : 'no connection'})`)
      setText(trimmed)
    }
  }

  return (
    <aside className="chat" id="pane-chat" aria-label="Chat with the agent">
      <h2>Agent</h2>
      <ol className="chat-log" data-testid="chat-log" ref={logRef}>
        {lines.map((line) => (
          <li
            key={line.id}
            className={`chat-message ${line.role}`}
            data-testid="chat-message"
            data-role={line.role}
          >
            <span className="who">{ROLE_LABEL[line.role]}</span>
            <span className="text">{line.text}</span>
          </li>
        ))}
        {pending.map((entry) => (
          <li key={entry.confirmId} className="chat-card">
            <ConfirmCard confirmation={entry} autoFocus={sentAt !== undefined && entry.createdAt >= sentAt} />
          </li>
        ))}
        {lines.length === 0 && pending.length === 0 && (
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
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <ChatComposer
        text={text}
        onText={setText}
        onSubmit={send}
        inputRef={inputRef}
        max={MAX_MESSAGE_LENGTH}
      />
    </aside>
  )
}
