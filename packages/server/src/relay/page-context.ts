import { type ContextMessage, MAX_CONTEXT_PER_SECOND, MAX_CONTEXT_TOTAL } from '@toolmark/protocol/extensions'
import { maskText, maskValue } from '../shared/redact.ts'
import type { Store } from '../store/store.ts'
import type { Conn, Rejection } from './types.ts'

/*
 * The `context` extension on the server: a page load's readable context (the current record, the user's
 * selection), kept per page load in the store, so whichever instance runs the conversation's next turn shows it
 * to the model. Nothing of it is logged.
 */

/** True when this server takes the `context` extension: its store keeps page contexts. */
export function takesContext(store: Store): boolean {
  return store.putPageContext !== undefined && store.getPageContext !== undefined
}

/** How many `context` messages each page connection sent in the current second. */
const windows = new WeakMap<Conn, { start: number; count: number }>()

/** What {@link receiveContext} needs from the relay. */
export interface ContextHost {
  readonly store: Store
  now(): number
  reject(rejection: Omit<Rejection, 'userId' | 'conversationId'>): false
}

/**
 * A `context` message: the page load's whole readable context now. It must come from a page load of this
 * connection's user and conversation that sent a manifest (else `mismatch`), and fit `MAX_CONTEXT_TOTAL` (else
 * `invalid`, `too large`). Values and descriptions are masked like every text the server keeps, then stored
 * unless a context of a higher `rev` is there (`old_rev`). At most `MAX_CONTEXT_PER_SECOND` per connection per
 * second are taken; the rest are dropped, unlogged.
 */
export async function receiveContext(
  host: ContextHost,
  conn: Conn,
  message: ContextMessage,
): Promise<boolean> {
  const { store } = host
  if (!store.putPageContext) return false // not offered: the extension was never accepted
  const now = host.now()
  const window = windows.get(conn)
  if (!window || now - window.start >= 1000) windows.set(conn, { start: now, count: 1 })
  else if (++window.count > MAX_CONTEXT_PER_SECOND) return false
  const base = { type: 'context', clientId: message.clientId }
  const page = await store.getManifest(message.clientId)
  if (!page || page.userId !== conn.userId || page.conversationId !== conn.conversationId)
    return host.reject({ ...base, reason: 'mismatch', detail: 'not a page load of this conversation' })
  if (JSON.stringify(message.entries).length > MAX_CONTEXT_TOTAL)
    return host.reject({ ...base, reason: 'invalid', detail: 'too large' })
  const stored = await store.putPageContext({
    clientId: message.clientId,
    userId: conn.userId,
    conversationId: conn.conversationId,
    rev: message.rev,
    entries: message.entries.map((entry) => ({
      name: entry.name,
      description: maskText(entry.description),
      value: maskValue(entry.value),
    })),
    updatedAt: now,
  })
  if (!stored) return host.reject({ ...base, reason: 'old_rev', detail: `rev ${message.rev} is older` })
  conn.clientIds.add(message.clientId)
  return true
}
