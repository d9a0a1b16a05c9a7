/**
 * A minimal stand-in for an `AbortSignal`, for the bridge's own calls. The registry only reads
 * `aborted` and adds or removes 'abort' listeners on a caller's signal, and a real
 * `AbortController` costs about 1.6 µs per call in Node. Tools never see this object: `ctx.signal`
 * is always a real `AbortSignal`.
 */
export class CancelToken {
  aborted = false
  #listeners: Array<() => void> | undefined

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return
    this.#listeners ??= []
    this.#listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const list = this.#listeners
    if (!list) return
    const i = list.indexOf(listener)
    if (i !== -1) list.splice(i, 1)
  }

  /** Fires every listener once. Idempotent. */
  abort(): void {
    if (this.aborted) return
    this.aborted = true
    const list = this.#listeners
    this.#listeners = undefined
    if (list) for (const listener of list) listener()
  }

  /** The token as the registry's `CallOptions.signal`. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal
  }
}
