'use client'
import { createContext, type ReactNode, useContext, useState } from 'react'
import { type ChallengeStore, createChallengeStore } from '../../demo/src/challenges/store.ts'
import { createSettingsStore, type SettingsStore } from '../../demo/src/settings/store.ts'

/** The page state of one tab (per request while server rendering). */
export interface Stores {
  challenges: ChallengeStore
  settings: SettingsStore
}

const StoresContext = createContext<Stores | null>(null)

/** Creates the stores once per mount of the root layout (a tab keeps them across navigations). */
export function StoresProvider({ children }: { children: ReactNode }): ReactNode {
  const [stores] = useState<Stores>(() => ({
    challenges: createChallengeStore(),
    settings: createSettingsStore(),
  }))
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>
}

/** The tab's stores. */
export function useStores(): Stores {
  const stores = useContext(StoresContext)
  if (!stores) throw new Error('useStores() outside <StoresProvider>')
  return stores
}
