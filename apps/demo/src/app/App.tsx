import type { GrantStore } from '@toolmark/core'
import { useTool } from '@toolmark/react'
import { type ReactNode, useMemo, useSyncExternalStore } from 'react'
import { ChallengesPage } from '../challenges/ChallengesPage.tsx'
import type { ChallengeStore } from '../challenges/store.ts'
import { UndoToast } from '../challenges/UndoToast.tsx'
import type { ChatMessage } from '../chat/api.ts'
import { ChatPanel } from '../chat/ChatPanel.tsx'
import type { PageNotes } from '../chat/notes.ts'
import { Guides } from '../guides/Guides.tsx'
import { SettingsPage } from '../settings/SettingsPage.tsx'
import type { SettingsStore } from '../settings/store.ts'
import type { Page, Router } from './router.ts'
import { Shell } from './Shell.tsx'
import { navigateTool } from './tools.ts'

/** Everything one page load shares: created once in `main.tsx`, outside React. */
export interface AppModel {
  router: Router
  challenges: ChallengeStore
  settings: SettingsStore
  /** The page's own lines in the chat (an undo from the page). */
  notes: PageNotes
  conversation: { id: string; messages: ChatMessage[] }
}

/**
 * The demo: navigation, the current page and the chat panel in the shared `<Shell>` layout (two tabs
 * below 760 px). `app.navigate` is registered at the root. `grants`, the registry's grant store, lists
 * the approvals the user chose to remember in the chat, each with Revoke.
 */
export function App({ model, grants }: { model: AppModel; grants?: GrantStore }): ReactNode {
  const { router } = model
  const page = useSyncExternalStore(router.subscribe, router.getPage)
  useTool(useMemo(() => navigateTool(router), [router]))

  return (
    <Shell
      nav={
        <>
          <NavLink page="challenges" current={page} router={router} label="Challenges" />
          <NavLink page="settings" current={page} router={router} label="Settings" />
        </>
      }
      chat={
        <ChatPanel
          conversationId={model.conversation.id}
          initialMessages={model.conversation.messages}
          notes={model.notes}
          {...(grants && { grants })}
        />
      }
      toast={page === 'challenges' && <UndoToast store={model.challenges} notes={model.notes} />}
    >
      {page === 'challenges' ? (
        <ChallengesPage store={model.challenges} />
      ) : (
        <SettingsPage store={model.settings} />
      )}
      <Guides page={page} />
    </Shell>
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
