import type { Challenge, ChallengeStore } from '../challenges/store.ts'
import type { ChatMessage } from '../chat/api.ts'
import type { PageNotes } from '../chat/notes.ts'
import type { SavedCard, SettingsStore } from '../settings/store.ts'

/** The page's data that a reload keeps, with the conversation it belongs to. */
export interface PageDataStores {
  challenges: ChallengeStore
  settings: SettingsStore
  notes: PageNotes
}

/** What one conversation's entry in localStorage holds (version 1). */
interface KeptData {
  version: 1
  challenges: Challenge[]
  card?: SavedCard
  notes: ChatMessage[]
}

const PREFIX = 'toolmark-demo:data:'

/** The localStorage key of the page data of conversation `conversationId`. */
export const pageDataKey = (conversationId: string): string => `${PREFIX}${conversationId}`

const isString = (value: unknown): value is string => typeof value === 'string'
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isChallenge = (value: unknown): value is Challenge =>
  isRecord(value) && [value.id, value.name, value.description, value.notes].every(isString)
const isCard = (value: unknown): value is SavedCard =>
  isRecord(value) && isString(value.last4) && /^\d{0,4}$/.test(value.last4) && isString(value.expiry)
const isNote = (value: unknown): value is ChatMessage =>
  isRecord(value) &&
  isString(value.id) &&
  value.id.startsWith('page-') &&
  value.role === 'tool' &&
  isString(value.text) &&
  typeof value.at === 'number'

/** The kept data, or `undefined` when there is none or it is not what this version writes. */
function read(storage: Storage, key: string): KeptData | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(storage.getItem(key) ?? 'null')
  } catch {
    return undefined
  }
  if (!isRecord(parsed) || parsed.version !== 1) return undefined
  const { challenges, card, notes } = parsed
  if (!Array.isArray(challenges) || !challenges.every(isChallenge)) return undefined
  if (card !== undefined && !isCard(card)) return undefined
  if (!Array.isArray(notes) || !notes.every(isNote)) return undefined
  return { version: 1, challenges, ...(card ? { card } : {}), notes }
}

/**
 * Keeps the page's data (the challenges, the saved card's last four digits and expiry, the page's chat
 * lines) in `storage` under the conversation's key, so a reload shows what the conversation did: the
 * data and the conversation survive a reload together, and a new conversation starts from the seed
 * data. First puts back what was kept for this conversation (an entry this version cannot read is
 * ignored, and the seed data stay), then writes on every change. Entries of other conversations are
 * removed. Returns a function that stops writing.
 */
export function keepPageData(
  stores: PageDataStores,
  conversationId: string,
  storage: Storage = localStorage,
): () => void {
  const key = pageDataKey(conversationId)
  for (let i = storage.length - 1; i >= 0; i--) {
    const other = storage.key(i)
    if (other?.startsWith(PREFIX) && other !== key) storage.removeItem(other)
  }
  const kept = read(storage, key)
  if (kept) {
    stores.challenges.replace(kept.challenges)
    stores.settings.restoreCard(kept.card)
    stores.notes.replace(kept.notes)
  }
  const write = (): void => {
    const card = stores.settings.getCard()
    const data: KeptData = {
      version: 1,
      challenges: [...stores.challenges.getState().challenges],
      ...(card ? { card } : {}),
      notes: [...stores.notes.getNotes()],
    }
    try {
      storage.setItem(key, JSON.stringify(data))
    } catch {
      // Storage full or disabled: the page keeps working, a reload starts from the kept or seed data.
    }
  }
  write()
  const offs = [
    stores.challenges.subscribe(write),
    stores.settings.subscribe(write),
    stores.notes.subscribe(write),
  ]
  return () => {
    for (const off of offs) off()
  }
}
