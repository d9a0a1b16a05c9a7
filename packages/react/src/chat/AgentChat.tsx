'use client'
import {
  type AgentConversation,
  type ChatMessage,
  MAX_MESSAGE_LENGTH,
  type ToolPart,
} from '@toolmark/bridge/chat'
import { type ComponentType, type FormEvent, type ReactNode, useRef, useState } from 'react'
import { ConfirmationCard } from '../ConfirmationCard.tsx'
import { usePendingConfirmations } from '../usePendingConfirmations.ts'
import { useAgentChat } from './useAgentChat.ts'

/** Props of {@link AgentChat}. */
export interface AgentChatProps {
  /** The tab's conversation: the same object the bridge's `connect` opens. */
  conversation: AgentConversation
  /** The chat's accessible name. Default "Chat with the agent". */
  label?: string
  /**
   * Your own rendering of a tool's calls, by page tool name (`{ 'cart.add': CartLine }`); any other tool's
   * calls render as {@link ToolPartView}.
   */
  renderTool?: Readonly<Record<string, ComponentType<ToolPartProps>>>
}

/** Props of a component that renders one page call (see `renderTool`). */
export interface ToolPartProps {
  /** The call in its latest state. */
  part: ToolPart
}

const STATE_WORDS: Record<ToolPart['state'], string> = {
  running: 'running…',
  waiting: 'waiting for you',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
}

/**
 * The default rendering of a page call: its title (or tool name), the input, its state, its progress while it
 * runs (a `<progress>` bar and the page's message) and the outcome's summary. `data-state` carries the state for
 * styling.
 */
export function ToolPartView({ part }: ToolPartProps): ReactNode {
  return (
    <span data-toolmark-tool-part="" data-state={part.state} data-tool={part.tool}>
      <strong>{part.title ?? part.tool}</strong> <code>{part.input}</code> <em>{STATE_WORDS[part.state]}</em>
      {part.summary !== undefined && part.state !== 'running' ? <span> ({part.summary})</span> : null}
      {part.state === 'running' && part.progress ? (
        <span data-toolmark-progress="">
          {part.progress.fraction !== undefined ? (
            <>
              {' '}
              <progress max={1} value={part.progress.fraction} />
            </>
          ) : null}
          {part.progress.message !== undefined ? ` ${part.progress.message}` : null}
        </span>
      ) : null}
    </span>
  )
}

const WHO: Record<ChatMessage['role'], string> = { user: 'You', assistant: 'Agent', tool: 'Tool' }

/**
 * A small unstyled chat with the agent, built on {@link useAgentChat} and `usePendingConfirmations()`:
 * the messages (yours, the agent's as it streams, and each page call it made with its state, rendered by
 * `renderTool` for the tools you name), the page's confirmation cards
 * with Reject and Approve, a "working" line while the agent works, and a message field with Send.
 * Keyboard: Enter sends; a card that answers the message just sent takes focus on Reject, Escape inside
 * a card rejects it, and focus goes back to the field when the card settles. Must sit inside the
 * `ToolmarkProvider` whose bridge talks in the same conversation. Copy it or use it.
 */
export function AgentChat({
  conversation,
  label = 'Chat with the agent',
  renderTool,
}: AgentChatProps): ReactNode {
  const chat = useAgentChat(conversation)
  const pending = usePendingConfirmations().items
  const [text, setText] = useState('')
  const latest = new Map(chat.tools.map((part) => [part.callId, part]))
  // A call shows once, where its first line is, in its latest state; calls with no line yet show after the log.
  const shown = new Set<string>()
  const part = (p: ToolPart): ReactNode => {
    const Render = renderTool?.[p.tool] ?? ToolPartView
    return <Render part={p} />
  }
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
        {chat.messages.map((message) => {
          const callId = message.part?.callId
          if (callId !== undefined) {
            if (shown.has(callId)) return null
            shown.add(callId)
            return (
              <li key={message.id} data-role="tool" data-testid="agent-chat-tool">
                {part(latest.get(callId) ?? message.part!)}
              </li>
            )
          }
          return (
            <li key={message.id} data-role={message.role} data-testid="agent-chat-message">
              <strong>{WHO[message.role]}: </strong>
              <span>{message.text}</span>
            </li>
          )
        })}
        {chat.tools
          .filter((p) => !shown.has(p.callId))
          .map((p) => (
            <li key={p.callId} data-role="tool" data-testid="agent-chat-tool">
              {part(p)}
            </li>
          ))}
        {chat.streaming && (
          <li
            key={chat.streaming.id}
            data-role="assistant"
            data-streaming=""
            data-testid="agent-chat-message"
          >
            <strong>{WHO.assistant}: </strong>
            <span>{chat.streaming.text}</span>
          </li>
        )}
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
