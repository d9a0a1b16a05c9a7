import { Link, router, usePage } from '@inertiajs/react'
import { xsrfToken } from '@toolmark/core/bridge/echo'
import { ConfirmationCard, useManifest, usePendingConfirmations, useToolmark } from '@toolmark/react'
import { type FormEvent, type ReactNode, useEffect, useState } from 'react'

type Shared = {
  chat: { id: number; role: string; text: string }[]
  toolmark: { conversationId: number | null } | null
  auth: { user: { name: string } | null }
  [key: string]: unknown
}

/** The persistent layout: navigation, the chat and the deferred confirmation cards (outlive page visits). */
export function Layout({ children }: { children?: ReactNode }) {
  const { props } = usePage<Shared>()
  const tm = useToolmark()
  const { items } = usePendingConfirmations()
  const manifest = useManifest()
  const [failure, setFailure] = useState<string | null>(null)
  const [text, setText] = useState('')
  useEffect(() => tm.events.on('error', (e) => e.code === 'transport_failed' && setFailure(e.code)), [tm])
  // The chat arrives by partial reloads: they keep the page scope and send no manifest.
  useEffect(() => {
    const timer = setInterval(() => router.reload({ only: ['chat'] }), 500)
    return () => clearInterval(timer)
  }, [])

  const send = async (event: FormEvent) => {
    event.preventDefault()
    const id = props.toolmark?.conversationId
    if (!id || text.trim() === '') return
    await fetch(`/conversations/${id}/messages`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'X-Requested-With': 'XMLHttpRequest',
        'X-XSRF-TOKEN': xsrfToken(),
      },
      body: JSON.stringify({ text }),
    })
    setText('')
  }

  return (
    <div style={{ display: 'grid', gridTemplateColumns: '1fr 22rem', gap: '1rem', fontFamily: 'system-ui' }}>
      <main>
        <nav style={{ display: 'flex', gap: '1rem' }}>
          <Link href="/challenges">Challenges</Link>
          <Link href="/settings">Settings</Link>
          <Link href="/wizard">Wizard</Link>
          <span>Signed in as {props.auth.user?.name}</span>
        </nav>
        {children}
        <details>
          <summary>Page tools ({manifest.tools.length})</summary>
          <ul data-testid="tools">
            {manifest.tools.map((t) => (
              <li key={t.name}>{t.name}</li>
            ))}
          </ul>
        </details>
      </main>
      <aside aria-label="Chat">
        {failure && (
          <p role="alert" data-testid="transport-failed">
            Could not reach the server ({failure}). Reload the page.
          </p>
        )}
        <ol data-testid="chat">
          {props.chat.map((m) => (
            <li key={m.id} data-role={m.role}>
              {m.text}
            </li>
          ))}
        </ol>
        {items.map((item) => (
          <ConfirmationCard key={item.confirmId} confirmation={item} />
        ))}
        <form onSubmit={send}>
          <input aria-label="Message" value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit">Send</button>
        </form>
      </aside>
    </div>
  )
}
