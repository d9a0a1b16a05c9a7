/** What the page keeps of a saved card: never the full number or the CVC. */
export interface SavedCard {
  last4: string
  expiry: string
}

/** A small observable store for the settings page (works with `useSyncExternalStore`). */
export interface SettingsStore {
  getCard(): SavedCard | undefined
  subscribe(listener: () => void): () => void
  /** Keeps the last four digits and the expiry of `card`; the rest is dropped here. */
  saveCard(card: { number: string; expiry: string }): SavedCard
  /** Puts back a card kept from an earlier page load (already reduced to last four and expiry). */
  restoreCard(card: SavedCard | undefined): void
}

/** Creates an empty settings store. */
export function createSettingsStore(): SettingsStore {
  let card: SavedCard | undefined
  const listeners = new Set<() => void>()
  const emit = (): void => {
    for (const listener of [...listeners]) listener()
  }
  return {
    getCard: () => card,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    saveCard({ number, expiry }) {
      card = { last4: number.replace(/\D/g, '').slice(-4), expiry }
      emit()
      return card
    },
    restoreCard(saved) {
      card = saved && { last4: saved.last4, expiry: saved.expiry }
      emit()
    },
  }
}
