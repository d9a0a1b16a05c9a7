import { bridge } from '@toolmark/bridge'
import { httpTransport } from '@toolmark/bridge/http'
import { createToolmark } from '@toolmark/core'
import { ToolmarkProvider } from '@toolmark/react'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.tsx'

/**
 * One page load: a new conversation (its id is the useChat id), the registry and the bridge over HTTP.
 * `?confirmExpiryMs=` shortens how long a confirmation waits (the e2e's expiry check).
 */
async function boot(): Promise<void> {
  const created = await fetch('/api/conversations', { method: 'POST' })
  const { id } = (await created.json()) as { id: string }
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
        <App conversationId={id} />
      </ToolmarkProvider>
    </StrictMode>,
  )
}

void boot()
