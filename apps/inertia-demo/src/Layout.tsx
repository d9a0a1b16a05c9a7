import { Link, usePage } from '@inertiajs/react'
import { useManifest, usePendingConfirmations, useToolmark } from '@toolmark/react'
import { type ReactNode, useEffect, useState } from 'react'
// The other two demos' layout (apps/demo): on a phone the page and the chat are two tabs.
import { Shell } from '../../demo/src/app/Shell.tsx'
import { ChatPanel } from './ChatPanel.tsx'
import { type ChatLine, useChat } from './chat.ts'
import { useGoneSignal } from './gone.ts'

type Shared = {
  chat: ChatLine[]
  toolmark: { userId: number; conversationId: number | null } | null
  auth: { user: { name: string } | null }
  [key: string]: unknown
}

const LINKS = [
  ['/challenges', 'Challenges'],
  ['/settings', 'Settings'],
  ['/wizard', 'Wizard'],
] as const

/**
 * The persistent layout, the other two demos' `<Shell>` (and their styles, from apps/demo): the top bar,
 * the page, and the chat with the deferred confirmation cards (they outlive page visits); below 760 px
 * the page and the chat are two tabs.
 */
export function Layout({ children }: { children?: ReactNode }) {
  const { props, url } = usePage<Shared>()
  const tm = useToolmark()
  const manifest = useManifest()
  const [failure, setFailure] = useState<string | null>(null)
  useEffect(() => tm.events.on('error', (e) => e.code === 'transport_failed' && setFailure(e.code)), [tm])
  const chat = useChat(props.chat, props.toolmark?.userId, props.toolmark?.conversationId)
  useGoneSignal(props.toolmark?.conversationId, usePendingConfirmations().items.length)
  const path = url.split('?')[0] ?? url

  return (
    <Shell
      nav={LINKS.map(([href, label]) => (
        <Link
          key={href}
          href={href}
          data-testid={`nav-${label.toLowerCase()}`}
          aria-current={path.startsWith(href) ? 'page' : undefined}
        >
          {label}
        </Link>
      ))}
      end={<span className="muted">Signed in as {props.auth.user?.name}</span>}
      chat={<ChatPanel conversationId={props.toolmark?.conversationId ?? null} chat={chat} />}
    >
      <div className="page">
        {failure && (
          <p className="form-error" role="alert" data-testid="transport-failed">
            Could not reach the server ({failure}). Reload the page.
          </p>
        )}
        {children}
        <details>
          <summary>Page tools ({manifest.tools.length})</summary>
          <ul data-testid="tools">
            {manifest.tools.map((t) => (
              <li key={t.name}>{t.name}</li>
            ))}
          </ul>
        </details>
      </div>
    </Shell>
  )
}
