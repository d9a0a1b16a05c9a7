import type { GrantStore } from '@toolmark/core'
import { GrantsList, usePendingConfirmations } from '@toolmark/react'
import { mergeMessage, type ToolPart, useAgentChat } from '@toolmark/react/chat'
import {
  type FormEvent,
  type ReactNode,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react'
import { type ChatMessage, demoConversation, MAX_MESSAGE_LENGTH } from './api.ts'
import { ChatComposer } from './ChatComposer.tsx'
import { ConfirmCard } from './ConfirmCard.tsx'
import type { PageNotes } from './notes.ts'

/** Things to type that show each feature of the demo. */
export const SUGGESTIONS = [
  'Search for chess',
  'Create a challenge called Robotics',
  'Delete the challenge Marathon Training',
  'What do the notes of Chess Openings say?',
  'Go to settings',
] as const

const ROLE_LABEL: Record<ChatMessage['role'], string> = { user: 'You', assistant: 'Agent', tool: 'Tool' }

const NO_NOTES: readonly ChatMessage[] = []
const noNotes = (): readonly ChatMessage[] => NO_NOTES
const subscribeNone = (): (() => void) => () => {}

const STATE_LABEL: Record<ToolPart['state'], string> = {
  running: 'running…',
  waiting: 'waiting for you',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
}

/** One page call of the agent: its title, input, state and progress while it runs (`data-state` for styling and tests). */
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
      <span className="tool-state">{STATE_LABEL[part.state]}</span>
      {part.state === 'running' && part.progress ? (
        <span className="tool-progress" data-testid="tool-progress">
          {part.progress.fraction !== undefined ? (
            <progress max={1} value={part.progress.fraction} aria-label="Progress" />
          ) : null}
          {part.progress.message !== undefined ? <span> {part.progress.message}</span> : null}
        </span>
      ) : null}
    </span>
  )
}

/** A line the page added itself (`PageNotes`), not one the server sent. */
const fromPage = (message: ChatMessage): boolean => message.id.startsWith('page-')

/**
 * The chat with the server's agent: history from GET, new messages, the reply as it streams, each page call
 * with its state, and the busy flag from the event stream, the page's own lines (`notes`, e.g. an undo from the page) in time order among them, and the
 * page's pending confirmations as cards below the last message, and (given `grants`) the approvals the
 * user chose to remember, each with Revoke.
 */
export function ChatPanel(props: {
  conversationId: string
  initialMessages: readonly ChatMessage[]
  /** Lines the page adds to the chat by itself, shown as "Page" lines. */
  notes?: PageNotes
  /** The registry's grant store: the chat lists the remembered approvals below the composer. */
  grants?: GrantStore
}): ReactNode {
  const { conversationId, notes, grants } = props
  // History, the event stream (with a catch-up after each reconnection), busy, sending: the library's hook.
  const chat = useAgentChat(demoConversation, {
    initial: useMemo(
      () => ({ id: conversationId, messages: [...props.initialMessages] }),
      [conversationId, props.initialMessages],
    ),
  })
  const received = chat.messages
  const pageNotes = useSyncExternalStore(
    notes?.subscribe ?? subscribeNone,
    notes?.getNotes ?? noNotes,
    notes?.getNotes ?? noNotes,
  )
  const messages = useMemo(() => pageNotes.reduce(mergeMessage, received), [received, pageNotes])
  const [text, setText] = useState('')
  const pending = usePendingConfirmations().items
  const logRef = useRef<HTMLOListElement>(null)
  const inputRef = useRef<HTMLInputElement>(null)

  // Calls still without a tool line (running, or answered a moment ago) show after the log's lines.
  const latest = new Map(chat.tools.map((part) => [part.callId, part]))
  const lined = new Set(messages.flatMap((m) => (m.part ? [m.part.callId] : [])))
  const running = chat.tools.filter((part) => !lined.has(part.callId))
  const entries = messages.length + pending.length + running.length + (chat.streaming ? 1 : 0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll whenever the number of entries changes.
  useEffect(() => {
    logRef.current?.lastElementChild?.scrollIntoView?.({ block: 'end' })
  }, [entries])

  const send = async (event?: FormEvent, value = text): Promise<void> => {
    event?.preventDefault()
    const trimmed = value.trim()
    if (!trimmed) return
    setText('')
    // Keep typing where you were: Send (or a suggestion) is disabled or gone once the text is sent.
    inputRef.current?.focus()
    if (!(await chat.send(trimmed))) setText(trimmed)
  }

  return (
    <aside className="chat" id="pane-chat" aria-label="Chat with the agent">
      <h2>Agent</h2>
      <ol className="chat-log" data-testid="chat-log" ref={logRef}>
        {messages.map((message) => (
          <li
            key={message.id}
            className={`chat-message ${message.role}`}
            data-testid="chat-message"
            data-role={message.role}
            data-source={fromPage(message) ? 'page' : 'server'}
            // A page call's line: the call's latest state (a call that waited for you ends on its confirmed line).
            data-state={message.part ? (latest.get(message.part.callId) ?? message.part).state : undefined}
            title={message.part ? (message.part.title ?? message.part.tool) : undefined}
          >
            <span className="who">{fromPage(message) ? 'Page' : ROLE_LABEL[message.role]}</span>
            <span className="text">{message.text}</span>
          </li>
        ))}
        {running.map((part) => (
          <li key={part.callId} className="chat-message tool" data-role="tool" data-testid="chat-tool">
            <span className="who">{ROLE_LABEL.tool}</span>
            <ToolPartBadge part={part} />
          </li>
        ))}
        {chat.streaming && (
          <li
            key={chat.streaming.id}
            className="chat-message assistant streaming"
            data-role="assistant"
            data-testid="chat-streaming"
          >
            <span className="who">{ROLE_LABEL.assistant}</span>
            <span className="text">{chat.streaming.text}</span>
          </li>
        )}
        {pending.map((entry) => (
          <li key={entry.confirmId} className="chat-card">
            <ConfirmCard
              confirmation={entry}
              autoFocus={chat.sentAt !== undefined && entry.createdAt >= chat.sentAt}
            />
          </li>
        ))}
        {messages.length === 0 && pending.length === 0 && !chat.streaming && running.length === 0 && (
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
      {chat.busy && (
        <p className="busy" data-testid="chat-busy">
          The agent is working…
        </p>
      )}
      {chat.error && (
        <p className="form-error" role="alert">
          {chat.error}
        </p>
      )}
      <ChatComposer
        text={text}
        onText={setText}
        onSubmit={send}
        inputRef={inputRef}
        max={MAX_MESSAGE_LENGTH}
      />
      {grants && (
        <details className="chat-grants" data-testid="chat-grants">
          <summary>Remembered approvals</summary>
          <GrantsList grants={grants} />
        </details>
      )}
    </aside>
  )
}
