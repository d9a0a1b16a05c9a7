'use client'
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react'
import { keepPageData } from '../../demo/src/app/pageData.ts'
import { type ChallengeStore, createChallengeStore } from '../../demo/src/challenges/store.ts'
import { createPageNotes, type PageNotes } from '../../demo/src/chat/notes.ts'
import { createSettingsStore, type SettingsStore } from '../../demo/src/settings/store.ts'
import { conversation } from './conversation.ts'

/** The page state of one tab (per request while server rendering). */
export interface Stores {
  challenges: ChallengeStore
  settings: SettingsStore
  /** The page's own lines in the chat (an undo from the page). */
  notes: PageNotes
}

const StoresContext = createContext<Stores | null>(null)

/**
 * Creates the stores once per mount of the root layout (a tab keeps them across navigations). The
 * server renders the seed data; in the browser, once the conversation is known, the data kept for it
 * in localStorage replace them and every change is kept (a reload shows what the conversation did).
 * This effect runs before the provider's (children first), so the data are back before the bridge
 * connects and the agent can call a tool.
 */
export function StoresProvider({ children }: { children: ReactNode }): ReactNode {
  const [stores] = useState<Stores>(() => ({
    challenges: createChallengeStore(),
    settings: createSettingsStore(),
    notes: createPageNotes(),
  }))
  useEffect(() => {
    let stop: (() => void) | undefined
    let live = true
    conversation().then(
      ({ id }) => {
        if (live) stop = keepPageData(stores, id)
      },
      () => {},
    )
    return () => {
      live = false
      stop?.()
    }
  }, [stores])
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>
}

/** The tab's stores. */
export function useStores(): Stores {
  const stores = useContext(StoresContext)
  if (!stores) throw new Error('useStores() outside <StoresProvider>')
  return stores
}
