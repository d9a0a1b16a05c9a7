import { xsrfToken } from '@toolmark/bridge/echo'
import { usePendingConfirmations } from '@toolmark/react'
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react'
// The same card as the other two demos (apps/demo, apps/next-demo), with their styles.
import { ChatComposer } from '../../demo/src/chat/ChatComposer.tsx'
import { ConfirmCard } from '../../demo/src/chat/ConfirmCard.tsx'
import type { ChatLine, ChatView, ToolPart } from './chat.ts'

/** Things to type that show each feature of this demo (its Challenges page has list, create and delete). */
export const SUGGESTIONS = [
  'List the challenges',
  'Create a challenge called Robotics',
  'Go to settings',
] as const

/** Laravel's limit for one message (ChatController validates `max:4000`). */
export const MAX_MESSAGE_LENGTH = 4000

const ROLE_LABEL: Record<ChatLine['role'], string> = { user: 'You', assistant: 'Agent', tool: 'Tool' }

const STATE_LABEL: Record<ToolPart['state'], string> = {
  running: 'running…',
  waiting: 'waiting for you',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
}

/** One page call of the agent: its title, input, state and outcome (`data-state` for styling and tests). */
function ToolPartBadge({ part }: { part: ToolPart }): ReactNode {
  return (
    <span
      className={`tool-part ${part.state}`}
      data-testid="tool-part"
      data-state={part.state}
      data-tool={part.tool}
    >
      <span className="tool-title">{part.title ?? part.tool}</span>{' '}
      <code className="tool-input">{part.input}</code>{' '}
      <span className="tool-state">
        {STATE_LABEL[part.state]}
        {part.summary && part.state !== 'waiting' ? ` · ${part.summary}` : ''}
      </span>
    </span>
  )
}

/**
 * The chat with the Laravel agent, laid out as in the other two demos: the lines, each page call the agent
 * makes with its state (the calls still without a tool line after the lines), the reply as it streams, the
 * page's pending confirmations as cards below the last one, suggestions while it is empty, and the input.
 * Messages are POSTed to `/conversations/{id}/messages`; the rest comes from `useChat`.
 */
export function ChatPanel(props: { conversationId: number | null; chat: ChatView }): ReactNode {
  const { conversationId } = props
  const { lines, streaming, parts } = props.chat
  const pending = usePendingConfirmations().items
  const [text, setText] = useState('')
  const [error, setError] = useState<string>()
  // A card created after the user last sent a message from this tab answers it, so it takes focus.
  const [sentAt, setSentAt] = useState<number>()
  const logRef = useRef<HTMLOListElement>(null)
  const inputRef = useRef<HTMLInputElement>(null)

  // A page call's latest state; the calls without a tool line yet show after the lines.
  const latest = new Map(parts.map((part) => [part.callId, part]))
  const lined = new Set(lines.flatMap((l) => (l.part ? [l.part.callId] : [])))
  const running = parts.filter((part) => !lined.has(part.callId))
  const entries = lines.length + pending.length + running.length + (streaming ? 1 : 0)
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
        {lines.map((line) => {
          // A page call's line shows the call's latest state (a call that waited ends on its confirmed line).
          const part = line.part && (latest.get(line.part.callId) ?? line.part)
          return (
            <li
              key={line.id}
              className={`chat-message ${line.role}`}
              data-testid="chat-message"
              data-role={line.role}
              data-state={part?.state}
              title={part ? (part.title ?? part.tool) : undefined}
            >
              <span className="who">{ROLE_LABEL[line.role]}</span>
              <span className="text">{line.text}</span>
              {part && <ToolPartBadge part={part} />}
            </li>
          )
        })}
        {running.map((part) => (
          <li key={part.callId} className="chat-message tool" data-role="tool" data-testid="chat-tool">
            <span className="who">{ROLE_LABEL.tool}</span>
            <ToolPartBadge part={part} />
          </li>
        ))}
        {streaming && (
          // Not a stored line yet (`data-role` streaming): the line with its messageId replaces it.
          <li
            key={streaming.messageId}
            className="chat-message assistant streaming"
            data-role="streaming"
            data-testid="chat-streaming"
          >
            <span className="who">{ROLE_LABEL.assistant}</span>
            <span className="text">{streaming.text}</span>
          </li>
        )}
        {pending.map((entry) => (
          <li key={entry.confirmId} className="chat-card">
            <ConfirmCard confirmation={entry} autoFocus={sentAt !== undefined && entry.createdAt >= sentAt} />
          </li>
        ))}
        {lines.length === 0 && pending.length === 0 && !streaming && running.length === 0 && (
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
