import type { ConsumerHost, ToolmarkEvents, ToolResult } from '@toolmark/core'
import type { Outbound } from './outbound.ts'

/** How many outcomes settled while no bridge was attached are kept per clientId (like the pending cap). */
const MAX_UNDELIVERED = 100

/**
 * Deferred confirmations outlive a bridge attach (a provider remount, HMR): per registry and
 * clientId we remember which confirmIds our results carried, and keep outcomes that settle while
 * no bridge is attached (the newest 100) to send on the next attach. A clientId's state and its
 * listener live only while a bridge is attached or it holds something: an open confirmation or an
 * outcome to send. Then it is dropped, so bridges that come and go leave nothing on the registry.
 */
interface ClientState {
  /** The confirmIds our results carried and not settled yet → the protocol id of the call that asked. */
  readonly ours: Map<string, string>
  readonly undelivered: Map<string, ToolResult>
  deliver: ((confirmId: string, result: ToolResult) => void) | undefined
  /** How many attaches of this clientId are live. */
  attached: number
  /** Drops the state and its listener when nothing holds it. */
  release(): void
}
const clientStates = new WeakMap<object, Map<string, ClientState>>()

function clientState(tm: ConsumerHost, clientId: string): ClientState {
  let byClient = clientStates.get(tm)
  if (!byClient) {
    byClient = new Map()
    clientStates.set(tm, byClient)
  }
  const all = byClient
  const found = all.get(clientId)
  if (found) return found
  const st: ClientState = {
    ours: new Map(),
    undelivered: new Map(),
    deliver: undefined,
    attached: 0,
    release() {
      if (st.attached > 0 || st.ours.size > 0 || st.undelivered.size > 0) return
      off()
      if (all.get(clientId) === st) all.delete(clientId)
    },
  }
  all.set(clientId, st)
  const off = tm.events.on('confirm', (event) => {
    if (event.phase !== 'settled' || event.mode !== 'deferred' || event.result === undefined) return
    if (!st.ours.delete(event.confirmId)) return
    if (st.deliver) st.deliver(event.confirmId, event.result)
    else {
      st.undelivered.set(event.confirmId, event.result)
      if (st.undelivered.size > MAX_UNDELIVERED)
        st.undelivered.delete(st.undelivered.keys().next().value as string)
    }
    st.release()
  })
  return st
}

/**
 * How one attach sends `confirmed`: the outcome of a deferred confirmation one of this clientId's
 * calls asked for goes back once, after the call's `needs_confirmation` result, whenever it settles:
 * during this attach, before that result went out (kept, sent right after it), or while no bridge
 * was attached (kept, sent on the next attach).
 */
export interface Delivery {
  /**
   * The callIds of our calls whose result has not arrived yet (the inbound side keeps it): a
   * settlement for one of them, before its result went out, is kept.
   */
  readonly pending: Set<string>
  /**
   * Our `needs_confirmation` result for `callId` (protocol id `id`) went out: its outcome is sent now
   * if kept, else when it settles.
   */
  awaiting(callId: string, confirmId: string, id: string): void
  /**
   * The server withdrew the card our call `id` opened (a `cancel` for it: another page load answered
   * its decision): it expires here, and no `confirmed` is sent for it, since the server already closed it.
   */
  withdraw(id: string): void
  /** Sends what settled while no bridge was attached, and whatever settles from now on (after the attach manifest). */
  flush(): void
  /** On detach: outcomes that settle from now on are kept for the next attach. */
  stop(): void
}

/** The delivery of `confirmed` for one attach of `clientId`'s bridge; keeps early settlements from now on. */
export function delivery(tm: ConsumerHost, clientId: string, out: Outbound): Delivery {
  const state = clientState(tm, clientId)
  state.attached++
  const pending = new Set<string>()
  /** Settlements that arrived before their needs_confirmation result went out, by callId. */
  const early = new Map<string, ToolResult>()
  const onConfirm = (event: ToolmarkEvents['confirm']): void => {
    if (event.phase !== 'settled' || event.mode !== 'deferred' || event.result === undefined) return
    if (!state.ours.has(event.confirmId) && pending.has(event.callId)) early.set(event.callId, event.result)
  }
  const offConfirm = tm.events.on('confirm', onConfirm)
  return {
    pending,
    awaiting(callId, confirmId, id) {
      const settled = early.get(callId)
      early.delete(callId)
      if (settled) out.confirmed(confirmId, settled)
      else state.ours.set(confirmId, id)
    },
    withdraw(id) {
      for (const [confirmId, asked] of state.ours)
        if (asked === id && state.ours.delete(confirmId)) tm.expirePending(confirmId)
    },
    flush() {
      state.deliver = out.confirmed
      for (const [confirmId, result] of state.undelivered) out.confirmed(confirmId, result)
      state.undelivered.clear()
    },
    stop() {
      if (state.deliver === out.confirmed) state.deliver = undefined
      offConfirm()
      state.attached--
      state.release()
    },
  }
}
