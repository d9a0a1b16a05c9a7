import { afterEach } from 'vitest'
import { WebSocket } from 'ws'

/* What the in-process tests share: pages in Node that pair as a browser page would. */

/** The origin the Node pages claim, and the relay allows. */
export const ORIGIN = 'http://127.0.0.1:5173'

/** Waits `ms` milliseconds. */
export const tick = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** ws in Node, sending the page's Origin as a browser would. */
export class PageSocket extends WebSocket {
  constructor(url: string) {
    super(url, { origin: ORIGIN })
  }
}

/** A list of clean-ups run in reverse after each test of the file that calls this. */
export function cleanupAfterEach(): Array<() => Promise<void> | void> {
  const cleanups: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })
  return cleanups
}
