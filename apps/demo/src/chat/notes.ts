import type { ChatMessage } from './api.ts'

/**
 * Lines the page adds to the chat by itself (e.g. "Undone on the page: …"), next to the server's
 * messages: what the user did from the page to a call the agent made. They are `tool` lines with ids
 * `page-…`, kept with the page's data (see `keepPageData`), so a reload shows them again.
 */
export interface PageNotes {
  /** The lines, oldest first (a new array after every change, for `useSyncExternalStore`). */
  getNotes(): readonly ChatMessage[]
  /** Calls `listener` after every change; returns a function that stops it. */
  subscribe(listener: () => void): () => void
  /** Adds a line at the current time. */
  add(text: string): ChatMessage
  /** Replaces every line (lines kept from an earlier page load). */
  replace(notes: readonly ChatMessage[]): void
}

/** Creates an empty list of page notes. */
export function createPageNotes(): PageNotes {
  let notes: readonly ChatMessage[] = []
  let counter = 0
  const listeners = new Set<() => void>()
  const set = (next: readonly ChatMessage[]): void => {
    notes = next
    for (const listener of [...listeners]) listener()
  }
  return {
    getNotes: () => notes,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    add(text) {
      counter += 1
      const note: ChatMessage = {
        id: `page-${Date.now().toString(36)}-${counter}`,
        role: 'tool',
        text,
        at: Date.now(),
      }
      set([...notes, note])
      return note
    },
    replace(next) {
      set(next.map((note) => ({ ...note })))
    },
  }
}
