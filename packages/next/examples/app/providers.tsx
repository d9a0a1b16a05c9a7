'use client'
import { bridge } from '@toolmark/bridge'
import { httpTransport } from '@toolmark/bridge/http'
import { RouteScope, ToolmarkProvider, useNavigationTool } from '@toolmark/next'
import { AgentChat, agentConversation } from '@toolmark/react/chat'
import { type ReactNode, Suspense } from 'react'

// The tab's conversation with the agent, shared by the bridge and the chat (nothing is sent until opened).
const conversation = agentConversation()

// Runs in an effect, once per tab, never on the server: the conversation, then the bridge over SSE + POST.
async function connect() {
  const { id } = await conversation.open()
  const streamUrl = `/toolmark/events?conversation=${encodeURIComponent(id)}`
  return [bridge({ transport: httpTransport({ streamUrl, postUrl: '/toolmark/messages' }) })]
}

function AppTools() {
  useNavigationTool({ pages: { home: '/', settings: '/settings' } }) // app.navigate
  return null
}

export function Providers({ children }: { children: ReactNode }) {
  return (
    <ToolmarkProvider options={{ dev: process.env.NODE_ENV !== 'production' }} connect={connect}>
      <Suspense fallback={null}>
        <RouteScope name="app" params={[]}>
          <AppTools />
        </RouteScope>
      </Suspense>
      {children}
      <AgentChat conversation={conversation} />
    </ToolmarkProvider>
  )
}
