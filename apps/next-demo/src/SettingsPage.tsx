'use client'
import { RouteScope, useRouteTool } from '@toolmark/next'
import { type ReactNode, useMemo, useSyncExternalStore } from 'react'
import { updateCardTool } from '../../demo/src/settings/tools.ts'
import { useStores } from './stores.tsx'

/** `/settings`: the saved card; `settings.updateCard` exists only while this page is shown. */
export function SettingsPage(): ReactNode {
  const { settings: store } = useStores()
  const card = useSyncExternalStore(store.subscribe, store.getCard, store.getCard)
  return (
    <RouteScope name="settings" segment="app/settings/page">
      <SettingsTools />
      <section className="page" aria-labelledby="settings-heading">
        <h1 id="settings-heading">Settings</h1>
        <h2>Payment card</h2>
        <p data-testid="settings-card">
          {card ? `Card ending in ${card.last4}, expires ${card.expiry}` : 'No card saved.'}
        </p>
      </section>
    </RouteScope>
  )
}

function SettingsTools(): null {
  const { settings: store } = useStores()
  useRouteTool(useMemo(() => updateCardTool(store), [store]))
  return null
}
