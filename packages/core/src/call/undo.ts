/** Undo entries kept at most; registering another evicts the oldest. */
export const UNDO_CAPACITY = 100

/** The 100-entry store behind `tm.undo(callId)`. Entries are single use. */
export class UndoStore {
  readonly #entries = new Map<string, () => unknown>()

  set(callId: string, undo: () => unknown): void {
    this.#entries.delete(callId)
    this.#entries.set(callId, undo)
    if (this.#entries.size > UNDO_CAPACITY) {
      const oldest = this.#entries.keys().next().value as string
      this.#entries.delete(oldest)
    }
  }

  /** Removes and returns the restorer, or `undefined` when none is left. */
  take(callId: string): (() => unknown) | undefined {
    const fn = this.#entries.get(callId)
    this.#entries.delete(callId)
    return fn
  }
}
