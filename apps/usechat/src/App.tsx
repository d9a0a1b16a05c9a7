import { useChat } from '@ai-sdk/react'
import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'
import { useChatApprovals } from '@toolmark/react/chat'
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai'
import { type ReactNode, useState } from 'react'
import * as z from 'zod'

const Search = z.object({ query: z.string().describe('Words of the title') })
const Target = z.object({ title: z.string().describe('The exact title of the note') })

/** The page: a list of notes with two tools, and the chat (the AI SDK's own useChat). */
export function App({
  conversationId,
  initialMessages,
}: {
  conversationId: string
  initialMessages: UIMessage[]
}): ReactNode {
  const [notes, setNotes] = useState(['Chess openings', 'Marathon training', 'Kite building'])
  const [deletes, setDeletes] = useState(0)
  useTool({
    name: 'notes.search',
    title: 'Search notes',
    description: 'Search the notes by words of their title.',
    input: Search,
    hints: { readOnly: true },
    run: ({ query }) => ok(notes.filter((n) => n.toLowerCase().includes(query.toLowerCase()))),
  })
  useTool({
    name: 'notes.delete',
    title: 'Delete note',
    description: 'Delete a note by its title.',
    input: Target,
    hints: { destructive: true },
    summary: ({ title }) => `Delete "${title}"`,
    run: ({ title }) => {
      setDeletes((n) => n + 1)
      setNotes((current) => current.filter((n) => n.toLowerCase() !== title.toLowerCase()))
      return ok({ deleted: title })
    },
  })
  return (
    <main data-conversation={conversationId}>
      <section>
        <h2>Notes</h2>
        <ul data-testid="notes">
          {notes.map((n) => (
            <li key={n} data-testid="note">
              {n}
            </li>
          ))}
        </ul>
        <p data-testid="delete-runs">{deletes}</p>
      </section>
      <Chat conversationId={conversationId} initialMessages={initialMessages} />
    </main>
  )
}

/** useChat as any AI SDK app writes it; `useChatApprovals` applies its approvals in the page. */
function Chat({
  conversationId,
  initialMessages,
}: {
  conversationId: string
  initialMessages: UIMessage[]
}): ReactNode {
  const chat = useChat({
    id: conversationId,
    messages: initialMessages,
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  })
  useChatApprovals(chat)
  const [text, setText] = useState('')
  return (
    <section>
      <h2>Chat</h2>
      <ol data-testid="messages">
        {chat.messages.map((m) => (
          <li key={m.id} data-testid={`message-${m.role}`}>
            {m.parts.map((part, i) => {
              const key = `${m.id}-${i}`
              if (part.type === 'text') return <p key={key}>{part.text}</p>
              if (!isToolUIPart(part)) return null
              return (
                <div key={key} data-testid="tool-part" data-state={part.state} data-type={part.type}>
                  <code>{part.type}</code> <span data-testid="tool-state">{part.state}</span>
                  <pre data-testid="tool-input">{JSON.stringify(part.input)}</pre>
                  {part.state === 'output-available' && (
                    <pre data-testid="tool-output">{JSON.stringify(part.output)}</pre>
                  )}
                  {part.state === 'output-error' && <p data-testid="tool-error">{part.errorText}</p>}
                  {part.state === 'approval-requested' && (
                    <p>
                      {part.approval.requestReason}{' '}
                      <button
                        type="button"
                        data-testid="approve"
                        onClick={() => chat.addToolApprovalResponse({ id: part.approval.id, approved: true })}
                      >
                        Approve
                      </button>
                      <button
                        type="button"
                        data-testid="deny"
                        onClick={() =>
                          chat.addToolApprovalResponse({
                            id: part.approval.id,
                            approved: false,
                            reason: 'Not now',
                          })
                        }
                      >
                        Deny
                      </button>
                    </p>
                  )}
                </div>
              )
            })}
          </li>
        ))}
      </ol>
      <p data-testid="status">{chat.status}</p>
      {chat.error && <p data-testid="chat-error">{chat.error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (text.trim() === '') return
          void chat.sendMessage({ text })
          setText('')
        }}
      >
        <input data-testid="chat-input" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" data-testid="send">
          Send
        </button>
      </form>
    </section>
  )
}
