/**
 * `@toolmark/bridge/progress`: the bridge with the opt-in `progress` extension of protocol v1. A tool's
 * `ctx.progress(...)` reaches the agent server while the call runs, so the chat can show how far it has come.
 *
 * After its manifest the page offers the extension with an `extensions` message. Only when the server accepts
 * it (an `extensions` message naming `progress`) does the page send `progress` messages, and only for calls that
 * server made and that are still running: at most one per call every `PROGRESS_INTERVAL_MS` (the latest update
 * wins in between). A v1 server drops the offer and never hears of progress: everything else works as with
 * `bridge()`.
 */

import type { ConsumerHost, ToolProgressEvent } from '@toolmark/core'
import { boundedCopy, PROTOCOL_VERSION } from '@toolmark/protocol'
import {
  MAX_PROGRESS_DATA,
  PROGRESS_EXTENSION,
  PROGRESS_INTERVAL_MS,
  validateExtensionMessage,
} from '@toolmark/protocol/extensions'
import { type Bridge, type BridgeOptions, getClientId, trackedBridge } from './bridge.ts'
import type { BridgeTransport } from './transport.ts'

/** Options of {@link progressBridge}: the bridge's, plus how often one call's progress may be sent. */
export interface ProgressBridgeOptions extends BridgeOptions {
  /** Least time between two `progress` messages of one call, in ms. Default `PROGRESS_INTERVAL_MS` (250). */
  intervalMs?: number
}

type Obj = Record<string, unknown>

/** `raw.type` and `raw.clientId` of an inbound value, read without trusting it (a getter that throws reads as none). */
function peek(raw: unknown): { type?: unknown; clientId?: unknown } {
  try {
    if (typeof raw !== 'object' || raw === null) return {}
    const o = raw as Obj
    return { type: o.type, clientId: o.clientId }
  } catch {
    return {}
  }
}

/**
 * `bridge(options)` with the `progress` extension: use it in place of `bridge` (`tm.use(progressBridge({
 * transport }))`). The consumer it returns has the bridge's `clientId`.
 */
export function progressBridge(options: ProgressBridgeOptions): Bridge {
  const inner = options.transport
  const clientId = options.clientId ?? getClientId()
  const intervalMs = options.intervalMs ?? PROGRESS_INTERVAL_MS
  let accepted = false
  let offered = false
  /** Core call id → the protocol id of a call this bridge runs. */
  const ids = new Map<string, string>()
  /** Protocol id → when its last progress was sent, and the update waiting for the interval to pass. */
  const sent = new Map<string, { at: number; timer?: ReturnType<typeof setTimeout>; next?: Obj }>()

  const offer = (): void => {
    offered = true
    Promise.resolve(
      inner.send({ protocol: PROTOCOL_VERSION, type: 'extensions', clientId, offer: [PROGRESS_EXTENSION] }),
    ).catch(() => {
      offered = false // not sent: offered again after the next manifest
    })
  }

  const transport: BridgeTransport = {
    send(message) {
      const out = inner.send(message)
      if (!offered && peek(message).type === 'manifest') offer()
      return out
    },
    onMessage(handler) {
      return inner.onMessage((raw) => {
        const { type, clientId: to } = peek(raw)
        if (type === 'extensions' && to === clientId) {
          const copy = boundedCopy(raw, { maxBytes: 4096, maxDepth: 4 })
          const checked = copy.ok ? validateExtensionMessage(copy.value, 'toPage') : undefined
          if (checked?.ok) accepted = checked.message.accept.includes(PROGRESS_EXTENSION)
          return
        }
        handler(raw)
      })
    },
  }
  if (inner.onError) transport.onError = (handler) => inner.onError!(handler)
  if (inner.onState) transport.onState = (handler) => inner.onState!(handler)
  if (inner.close) transport.close = () => inner.close!()

  const post = (id: string, update: Obj): void => {
    Promise.resolve(
      inner.send({ protocol: PROTOCOL_VERSION, type: 'progress', clientId, id, ...update }),
    ).catch(
      () => {}, // progress is best effort: the call's result is what counts
    )
  }
  const forget = (id: string): void => {
    const s = sent.get(id)
    if (s?.timer !== undefined) clearTimeout(s.timer)
    sent.delete(id)
  }
  const report = (event: ToolProgressEvent): void => {
    const id = ids.get(event.callId)
    if (id === undefined || !accepted) return
    const update: Obj = {}
    if (event.fraction !== undefined) update.fraction = event.fraction
    if (event.message !== undefined) update.message = event.message
    if (event.data !== undefined) {
      try {
        const text = JSON.stringify(event.data)
        if (text !== undefined && text.length <= MAX_PROGRESS_DATA) update.data = JSON.parse(text)
      } catch {
        // not JSON: the data is left out, the rest still goes
      }
    }
    if (Object.keys(update).length === 0) return
    const now = Date.now()
    const s = sent.get(id)
    if (!s || now - s.at >= intervalMs) {
      sent.set(id, { at: now })
      return post(id, update)
    }
    s.next = update
    s.timer ??= setTimeout(
      () => {
        const due = sent.get(id)
        if (!due?.next) return
        const next = due.next
        sent.set(id, { at: Date.now() })
        post(id, next)
      },
      intervalMs - (now - s.at),
    )
  }

  // The bridge tells which protocol id each of its calls runs for; progress of any other call is not sent.
  const base = trackedBridge(
    { ...options, transport, clientId },
    {
      start(callId, id) {
        ids.set(callId, id)
      },
      end(callId) {
        const id = ids.get(callId)
        ids.delete(callId)
        if (id !== undefined) forget(id)
      },
    },
  )
  const consumer = (host: ConsumerHost): (() => void) => {
    const off = host.observe({ progress: report })
    const detach = base(host)
    return () => {
      detach?.()
      off()
      for (const id of [...sent.keys()]) forget(id)
      ids.clear()
    }
  }
  return Object.assign(consumer, { clientId })
}

export { PROGRESS_INTERVAL_MS } from '@toolmark/protocol/extensions'
