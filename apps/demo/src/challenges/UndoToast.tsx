import { useToolmark } from '@toolmark/react'
import { type ReactNode, useState, useSyncExternalStore } from 'react'
import type { PageNotes } from '../chat/notes.ts'
import { failure } from './ChallengesPage.tsx'
import type { ChallengeStore, DeletedChallenge } from './store.ts'

/**
 * The Undo bar after a deletion (by hand or approved from the chat). It has its own row in the layout,
 * below the page and the chat, so it never covers a card, the chat input or the list. An undo adds a
 * line to the chat (`notes`), so the conversation shows that the deleted challenge is back.
 */
export function UndoToast({ store, notes }: { store: ChallengeStore; notes?: PageNotes }): ReactNode {
  const { lastDeleted } = useSyncExternalStore(store.subscribe, store.getState, store.getState)
  return lastDeleted ? (
    <UndoBar key={lastDeleted.callId} deleted={lastDeleted} store={store} notes={notes} />
  ) : null
}

function UndoBar(props: {
  deleted: DeletedChallenge
  store: ChallengeStore
  notes: PageNotes | undefined
}): ReactNode {
  const { deleted, store, notes } = props
  const tm = useToolmark()
  const [error, setError] = useState<string>()
  const undo = async (): Promise<void> => {
    const problem = failure(await tm.undo(deleted.callId))
    // On failure the bar stays with the reason until dismissed.
    if (problem) {
      setError(problem)
      return
    }
    store.setLastDeleted(undefined)
    notes?.add(`Undone on the page: Delete challenge "${deleted.challenge.name}". It is back in the list.`)
  }
  return (
    <output className="toast" data-testid="undo-toast">
      <span>Deleted “{deleted.challenge.name}”.</span>
      <button type="button" data-testid="undo-delete" onClick={undo}>
        Undo
      </button>
      <button
        type="button"
        className="link"
        aria-label="Dismiss"
        onClick={() => store.setLastDeleted(undefined)}
      >
        ×
      </button>
      {error && (
        <span className="form-error" role="alert">
          {error}
        </span>
      )}
    </output>
  )
}
