import { contextBridge } from '@toolmark/bridge/context'
import { serverGrants } from '@toolmark/bridge/grants'
import { httpTransport } from '@toolmark/bridge/http'
import { progressBridge } from '@toolmark/bridge/progress'
import { websocketTransport } from '@toolmark/bridge/websocket'
import { createToolmark } from '@toolmark/core'
import { devtools } from '@toolmark/devtools'
import { devtoolsWebMcp } from '@toolmark/devtools/webmcp'
import { ToolmarkProvider } from '@toolmark/react'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ExternalAgents } from './agents/ExternalAgents.tsx'
import { createExternalAgents } from './agents/external.ts'
import { App } from './app/App.tsx'
import { keepPageData } from './app/pageData.ts'
import { createRouter } from './app/router.ts'
import { createChallengeStore } from './challenges/store.ts'
import { ensureConversation } from './chat/api.ts'
import { createPageNotes } from './chat/notes.ts'
import { inlineConfirms } from './guides/confirm.ts'
import { createSettingsStore } from './settings/store.ts'
import './styles.css'

/**
 * Boots one page load: finds (or starts) the conversation and reads the user's remembered approvals
 * (grants, kept by the server per user), puts back the page data kept for the conversation,
 * creates the registry and the bridge once, then renders. `<ToolmarkProvider consumers>` attaches the bridge while the app is mounted (StrictMode's
 * simulated remount keeps it attached once, so the page load keeps one clientId).
 */
async function boot(root: ReturnType<typeof createRoot>): Promise<void> {
  const conversation = await ensureConversation()
  // The user's grants live on the server (`/api/grants`), read once the conversation's request has
  // started the session (a first visit has none before). Until they are read, every approval is asked.
  const grants = serverGrants()
  await grants
    .load()
    .catch((cause: unknown) => console.warn('Could not read the remembered approvals', cause))
  // One inline queue for every caller that waits in the page (tours, WebMCP, desktop MCP).
  const external = createExternalAgents(inlineConfirms)
  const tm = createToolmark({ dev: import.meta.env.DEV, confirm: inlineConfirms.handler, grants })
  const query = `conversation=${encodeURIComponent(conversation.id)}`
  // `?transport=http`: the bridge over Server-Sent Events and POST, for hosts without WebSockets.
  const transport =
    new URLSearchParams(location.search).get('transport') === 'http'
      ? httpTransport({ streamUrl: `/toolmark/events?${query}`, postUrl: '/toolmark/messages' })
      : websocketTransport({
          url: `${location.origin.replace(/^http/, 'ws')}/toolmark/ws?${query}`,
          terminalCloseCodes: [4401, 4403],
        })
  // The bridge with the progress and context extensions: a slow tool's progress shows in the chat while
  // it runs, and the page's readable context (the list's search) reaches the agent with each turn. Its
  // calls carry the conversation, so an approval can be remembered "for this conversation".
  const consumers = [
    contextBridge({ transport, conversation: conversation.id, base: progressBridge }),
    ...external.consumers,
    devtools({ production: true, grants }),
  ]
  // `?devtools=webmcp`: the devtools also answer the browser's developer tools, as a WebMCP tool
  // marked debugging (it records calls while attached, so only when asked). The demo is a production
  // build, so it turns the tool on explicitly (the console says so).
  if (new URLSearchParams(location.search).get('devtools') === 'webmcp')
    consumers.push(devtoolsWebMcp({ production: true }))
  const model = {
    router: createRouter(),
    challenges: createChallengeStore(),
    settings: createSettingsStore(),
    notes: createPageNotes(),
    conversation,
  }
  // The page's data belongs to the conversation: a reload keeps both, a new conversation starts fresh.
  keepPageData(model, conversation.id)
  root.render(
    <StrictMode>
      <ToolmarkProvider toolmark={tm} consumers={consumers}>
        <App model={model} grants={grants} />
        <ExternalAgents queue={external.queue} />
      </ToolmarkProvider>
    </StrictMode>,
  )
}

const root = createRoot(document.getElementById('root')!)
boot(root).catch((cause: unknown) => {
  console.error(cause)
  root.render(
    <p className="boot-error" role="alert">
      Could not reach the agent server. Start it with <code>npm run demo</code> and reload.
    </p>,
  )
})
