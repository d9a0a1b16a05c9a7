'use client'
import { contextBridge } from '@toolmark/bridge/context'
import { type ServerGrants, serverGrants } from '@toolmark/bridge/grants'
import { httpTransport } from '@toolmark/bridge/http'
import { progressBridge } from '@toolmark/bridge/progress'
import { ok } from '@toolmark/core'
import { RouteScope, ToolmarkProvider, useNavigationTool, useRouteTool } from '@toolmark/next'
import Link from 'next/link'
import { useParams, usePathname } from 'next/navigation'
import { type ReactNode, Suspense, useEffect, useMemo, useState } from 'react'
import { Shell } from '../../demo/src/app/Shell.tsx'
import { UndoToast } from '../../demo/src/challenges/UndoToast.tsx'
import { ChatPanel } from '../../demo/src/chat/ChatPanel.tsx'
import { type Conversation, conversation } from './conversation.ts'
import { StoresProvider, useStores } from './stores.tsx'

/**
 * Opens the bridge once the conversation is known and the user's remembered approvals (`grants`, kept
 * by the server per user) are read (in the browser only, once per tab), over the HTTP transport: an
 * event stream from and POSTs to the route handler `app/toolmark/[...path]/route.ts`, so `next start`
 * serves it without a WebSocket server. It offers the progress extension, so a slow tool's progress
 * shows in the chat while it runs, and the context extension, so the page's readable context (the
 * challenge open) reaches the agent with each turn. Its calls carry the conversation, so an approval
 * can be remembered "for this conversation".
 */
async function connect(grants: ServerGrants) {
  const { id } = await conversation()
  // After the conversation's request, which starts the session on a first visit (the grants need it).
  await grants
    .load()
    .catch((cause: unknown) => console.warn('Could not read the remembered approvals', cause))
  const transport = httpTransport({
    streamUrl: `/toolmark/events?conversation=${encodeURIComponent(id)}`,
    postUrl: '/toolmark/messages',
  })
  return [contextBridge({ transport, conversation: id, base: progressBridge })]
}

const dev = process.env.NODE_ENV !== 'production'

/**
 * Everything the root layout wraps the pages in: registry (with the server's grant store), stores,
 * app-level tools, and the Vite demo's layout (`<Shell>`: nav, page, chat, Undo row; two tabs below 760 px).
 */
export function Providers({ children }: { children: ReactNode }): ReactNode {
  // One grant store per tab, as the registry; nothing is fetched while server rendering.
  const [grants] = useState(() => serverGrants())
  return (
    <ToolmarkProvider options={{ dev, grants }} connect={() => connect(grants)}>
      <StoresProvider>
        {/* URL hooks (usePathname, useParams) stream in after prerendering with Cache Components. */}
        <Suspense fallback={null}>
          <RouteScope name="app" params={[]} segment="app/layout">
            <AppTools />
          </RouteScope>
        </Suspense>
        <Shell
          nav={
            <Suspense fallback={<Links />}>
              <Links current />
            </Suspense>
          }
          chat={<Chat grants={grants} />}
          toast={
            <Suspense fallback={null}>
              <Toast />
            </Suspense>
          }
        >
          {children}
        </Shell>
      </StoresProvider>
    </ToolmarkProvider>
  )
}

/** `app.navigate` and `app.whereAmI`: registered by the root layout, so they stay on every page. */
function AppTools(): null {
  useNavigationTool({
    pages: { challenges: '/challenges', settings: '/settings' },
    // Each page with what it offers, in quotes then parentheses: the offline agent reads this to say
    // which page can do what the current one cannot.
    description:
      'Open (go to, navigate to) another page of the app: "challenges" (the challenges list: search, ' +
      'create, delete and open challenges to rename them, read their notes) or "settings" (account ' +
      'settings: update the payment card). Tools of the other page appear after navigating.',
  })
  const pathname = usePathname()
  const params = useParams()
  useRouteTool(
    useMemo(
      () => ({
        name: 'whereAmI',
        title: 'Current page',
        description: 'Tell where the user is: the path of the page currently open and its route params.',
        hints: { readOnly: true },
        run: () => ok({ path: pathname, params }),
      }),
      [pathname, params],
    ),
  )
  return null
}

function Links({ current = false }: { current?: boolean }): ReactNode {
  const Item = current ? CurrentLink : NavLink
  return (
    <>
      <Item href="/challenges" label="Challenges" />
      <Item href="/settings" label="Settings" />
    </>
  )
}

function CurrentLink({ href, label }: { href: string; label: string }): ReactNode {
  return <NavLink href={href} label={label} current={usePathname().startsWith(href)} />
}

function NavLink({
  href,
  label,
  current = false,
}: {
  href: string
  label: string
  current?: boolean
}): ReactNode {
  return (
    <Link href={href} data-testid={`nav-${label.toLowerCase()}`} aria-current={current ? 'page' : undefined}>
      {label}
    </Link>
  )
}

/** The Undo bar after a deletion, on the challenges pages. */
function Toast(): ReactNode {
  const { challenges, notes } = useStores()
  return usePathname().startsWith('/challenges') ? <UndoToast store={challenges} notes={notes} /> : null
}

/** The demo's chat panel with the remembered approvals, once the conversation is loaded (client only). */
function Chat({ grants }: { grants: ServerGrants }): ReactNode {
  const { notes } = useStores()
  const [current, setCurrent] = useState<Conversation>()
  useEffect(() => {
    let live = true
    conversation().then(
      (value) => live && setCurrent(value),
      () => {},
    )
    return () => {
      live = false
    }
  }, [])
  if (!current) return <aside className="chat" id="pane-chat" aria-label="Chat with the agent" />
  return (
    <ChatPanel conversationId={current.id} initialMessages={current.messages} notes={notes} grants={grants} />
  )
}
