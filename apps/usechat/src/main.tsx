import { bridge } from '@toolmark/bridge'
import { httpTransport } from '@toolmark/bridge/http'
import { createToolmark } from '@toolmark/core'
import { ToolmarkProvider } from '@toolmark/react'
import type { UIMessage } from 'ai'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.tsx'

/** The tab's conversation: kept in sessionStorage, so a reload goes on with it; a new one otherwise. */
async function conversation(): Promise<{ id: string; messages: UIMessage[] }> {
  const kept = sessionStorage.getItem(CONVERSATION_KEY)
  if (kept) {
    // The history as useChat messages; a call still waiting for the user is asked again on this page load.
    const response = await fetch(`/api/chat?id=${encodeURIComponent(kept)}`)
    if (response.ok) return { id: kept, ...((await response.json()) as { messages: UIMessage[] }) }
  }
  const created = await fetch('/api/conversations', { method: 'POST' })
  const { id } = (await created.json()) as { id: string }
  sessionStorage.setItem(CONVERSATION_KEY, id)
  return { id, messages: [] }
}

const CONVERSATION_KEY = 'usechat.conversation'

/**
 * One page load: the tab's conversation (its id is the useChat id), the registry and the bridge over HTTP.
 * `?confirmExpiryMs=` shortens how long a confirmation waits (the e2e's expiry check).
 */
async function boot(): Promise<void> {
  const { id, messages } = await conversation()
  const expiry = Number(new URLSearchParams(location.search).get('confirmExpiryMs'))
  const tm = createToolmark(expiry > 0 ? { confirmExpiryMs: expiry } : {})
  const query = `conversation=${encodeURIComponent(id)}`
  const consumers = [
    bridge({
      transport: httpTransport({ streamUrl: `/toolmark/events?${query}`, postUrl: '/toolmark/messages' }),
    }),
  ]
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <ToolmarkProvider toolmark={tm} consumers={consumers}>
        <App conversationId={id} initialMessages={messages} />
      </ToolmarkProvider>
    </StrictMode>,
  )
}

void boot()
