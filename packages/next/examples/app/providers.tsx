'use client'
import { bridge } from '@toolmark/bridge'
import { websocketTransport } from '@toolmark/bridge/websocket'
import { RouteScope, ToolmarkProvider, useNavigationTool } from '@toolmark/next'
import { type ReactNode, Suspense } from 'react'

// Runs in an effect, once per tab, never on the server.
function connect() {
  const url = `${location.origin.replace(/^http/, 'ws')}/toolmark/ws`
  return [bridge({ transport: websocketTransport({ url }) })]
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
