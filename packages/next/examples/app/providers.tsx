'use client'
import { bridge } from '@toolmark/bridge'
import { httpTransport } from '@toolmark/bridge/http'
import { RouteScope, ToolmarkProvider, useNavigationTool } from '@toolmark/next'
import { type ReactNode, Suspense } from 'react'

// Runs in an effect, once per tab, never on the server: a conversation, then the bridge over SSE + POST.
async function connect() {
  const { id } = (await (await fetch('/api/conversations', { method: 'POST' })).json()) as { id: string }
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
    </ToolmarkProvider>
  )
}
