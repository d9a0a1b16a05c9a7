import { environment } from '@toolmark/core/adapter'
import { createSubscriber } from 'svelte/reactivity'
import type { Readable } from 'svelte/store'

/** A Svelte store (`$store` in components) that also offers a runes-friendly `current`. */
export interface ReactiveStore<T> extends Readable<T> {
  /** The current value; reading it in an effect or template subscribes while read. */
  readonly current: T
}

/**
 * Wraps a core subscription (`listen`) and getter (`read`) as a store. The core is subscribed while
 * someone listens (store subscribers or effects reading `current`) and never on the server.
 * Subscribers run only when `read()` returns a new value (the core keeps identities per change).
 */
export function externalStore<T>(
  read: () => T,
  listen: (onChange: () => void) => () => void,
): ReactiveStore<T> {
  let value = read()
  const notify = new Set<() => void>()
  let stop: (() => void) | undefined
  const attach = (fn: () => void): (() => void) => {
    notify.add(fn)
    if (notify.size === 1) {
      value = read()
      stop = environment.isServer()
        ? undefined
        : listen(() => {
            const next = read()
            if (next === value) return
            value = next
            for (const run of [...notify]) run()
          })
    }
    return () => {
      if (!notify.delete(fn) || notify.size > 0) return
      stop?.()
      stop = undefined
    }
  }
  const track = createSubscriber((update) => attach(update))
  return {
    subscribe(run) {
      const off = attach(() => run(value))
      run(value)
      return off
    },
    get current() {
      track()
      if (notify.size === 0) value = read()
      return value
    },
  }
}
