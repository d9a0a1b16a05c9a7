/**
 * The handlers a transport keeps for one kind of value (inbound messages, errors). Each emit calls
 * the handlers registered when it started, in registration order: one added or removed meanwhile
 * counts from the next emit.
 */
export interface Listeners<T> {
  /** Registers `handler`; returns the function that unregisters it (idempotent). */
  add(handler: (value: T) => void): () => void
  /**
   * Calls every handler with `value`. Without `onThrow`, a handler that throws stops the emit and
   * the throw reaches the caller; with it, the error goes to `onThrow` and the other handlers still run.
   */
  emit(value: T, onThrow?: (error: unknown) => void): void
  /** Unregisters every handler. */
  clear(): void
}

/** A new, empty {@link Listeners} set. */
export function listeners<T>(): Listeners<T> {
  // Copy on write: add and remove make a new array, so an emit walks the array it started with
  // without copying it on every message.
  let list: ReadonlyArray<(value: T) => void> = []
  return {
    add(handler) {
      if (!list.includes(handler)) list = [...list, handler]
      return () => {
        if (list.includes(handler)) list = list.filter((h) => h !== handler)
      }
    },
    emit(value, onThrow) {
      const now = list
      for (const handler of now) {
        if (!onThrow) {
          handler(value)
          continue
        }
        try {
          handler(value)
        } catch (error) {
          onThrow(error)
        }
      }
    },
    clear() {
      list = []
    },
  }
}
