import { usePendingConfirmations, useTool } from '@toolmark/react'
import { type ReactNode, useMemo, useState, useSyncExternalStore } from 'react'
import { ChallengesPage, UndoToast } from '../challenges/ChallengesPage.tsx'
import type { ChallengeStore } from '../challenges/store.ts'
import type { ChatMessage } from '../chat/api.ts'
import { ChatPanel } from '../chat/ChatPanel.tsx'
import { Guides } from '../guides/Guides.tsx'
import { SettingsPage } from '../settings/SettingsPage.tsx'
import type { SettingsStore } from '../settings/store.ts'
import type { Page, Router } from './router.ts'
import { navigateTool } from './tools.ts'

/** Everything one page load shares: created once in `main.tsx`, outside React. */
export interface AppModel {
  router: Router
  challenges: ChallengeStore
  settings: SettingsStore
  conversation: { id: string; messages: ChatMessage[] }
}

/** Which half a narrow screen shows: the page or the chat (wide screens show both side by side). */
type Pane = 'page' | 'chat'

/**
 * The demo: navigation, the current page and the chat panel. `app.navigate` is registered at the root.
 * Below 760 px the page and the chat become two tabs (CSS decides; both stay mounted), and the Undo
 * bar takes its own row at the bottom, so it never covers the chat input or a card.
 */
export function App({ model }: { model: AppModel }): ReactNode {
  const { router } = model
  const page = useSyncExternalStore(router.subscribe, router.getPage)
  useTool(useMemo(() => navigateTool(router), [router]))
  const [pane, setPane] = useState<Pane>('page')
  const waiting = usePendingConfirmations().items.length

  return (
    <div className="layout" data-pane={pane}>
      <header className="topbar">
        <span className="brand">Challenges</span>
        <nav>
          <NavLink page="challenges" current={page} router={router} label="Challenges" />
          <NavLink page="settings" current={page} router={router} label="Settings" />
        </nav>
      </header>
      <nav className="pane-tabs" aria-label="Page or chat">
        <PaneTab pane="page" current={pane} onSelect={setPane} label="Page" />
        <PaneTab pane="chat" current={pane} onSelect={setPane} label="Agent">
          {waiting > 0 && (
            <span className="badge" data-testid="pane-chat-waiting">
              {waiting}
              <span className="visually-hidden"> waiting for you to confirm</span>
            </span>
          )}
        </PaneTab>
      </nav>
      <main id="pane-page">
        {page === 'challenges' ? (
          <ChallengesPage store={model.challenges} />
        ) : (
          <SettingsPage store={model.settings} />
        )}
        <Guides page={page} />
      </main>
      <ChatPanel conversationId={model.conversation.id} initialMessages={model.conversation.messages} />
      <div className="toast-row">{page === 'challenges' && <UndoToast store={model.challenges} />}</div>
    </div>
  )
}

function PaneTab(props: {
  pane: Pane
  current: Pane
  onSelect: (pane: Pane) => void
  label: string
  children?: ReactNode
}): ReactNode {
  const { pane, current, onSelect, label, children } = props
  return (
    <button
      type="button"
      className="pane-tab"
      data-testid={`pane-${pane}`}
      aria-pressed={pane === current}
      aria-controls={`pane-${pane}`}
      onClick={() => onSelect(pane)}
    >
      {label}
      {children}
    </button>
  )
}

function NavLink(props: { page: Page; current: Page; router: Router; label: string }): ReactNode {
  const { page, current, router, label } = props
  return (
    <a
      href={page === 'settings' ? '/settings' : '/'}
      data-testid={`nav-${page}`}
      aria-current={page === current ? 'page' : undefined}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return
        event.preventDefault()
        router.navigate(page)
      }}
    >
      {label}
    </a>
  )
}
