/**
 * `@toolmark/bridge/context`: the bridge with the opt-in `context` extension of protocol v1. The page's readable
 * context (`tm.context(...)`: the current record, the user's selection) reaches the agent server, which shows it
 * to the model with each turn.
 *
 * After its manifest the page offers the extension with an `extensions` message. Only when the server accepts
 * it (an `extensions` message naming `context`) does the page send `context` messages: the masked context the
 * caller `inapp` sees, at once, then again only when it changed, at most one every `CONTEXT_INTERVAL_MS` (the
 * latest context wins in between). A v1 server drops the offer and never hears of the context.
 */

import type { ConsumerHost, ContextEntry, ContextSnapshot } from '@toolmark/core'
import { boundedCopy, PROTOCOL_VERSION } from '@toolmark/protocol'
import {
  CONTEXT_EXTENSION,
  CONTEXT_INTERVAL_MS,
  type ContextMessageEntry,
  MAX_CONTEXT_DESCRIPTION,
  MAX_CONTEXT_ENTRIES,
  MAX_CONTEXT_TOTAL,
  validateExtensionMessage,
} from '@toolmark/protocol/extensions'
import { type Bridge, type BridgeOptions, bridge, getClientId } from './bridge.ts'
import type { BridgeTransport } from './transport.ts'

/** Options of {@link contextBridge}: the bridge's, how often the context may be sent, and the bridge it extends. */
export interface ContextBridgeOptions extends BridgeOptions {
  /** Least time between two `context` messages, in ms. Default `CONTEXT_INTERVAL_MS` (250). */
  intervalMs?: number
  /**
   * The bridge it extends: `bridge` (default), or another extension's such as `progressBridge`. The page then
   * sends one offer naming both extensions, and each takes its own from the server's answer.
   */
  base?: (options: BridgeOptions) => Bridge
}

/** `raw.type` and `raw.clientId` of an inbound value, read without trusting it (a getter that throws reads as none). */
function peek(raw: unknown): { type?: unknown; clientId?: unknown } {
  try {
    if (typeof raw !== 'object' || raw === null) return {}
    const o = raw as Record<string, unknown>
    return { type: o.type, clientId: o.clientId }
  } catch {
    return {}
  }
}

/** One entry as the protocol carries it: no title or revision, the description cut to its limit. */
function wireEntry(entry: ContextEntry): ContextMessageEntry {
  const description = [...entry.description]
  return {
    name: entry.name,
    description:
      description.length > MAX_CONTEXT_DESCRIPTION
        ? description.slice(0, MAX_CONTEXT_DESCRIPTION).join('')
        : entry.description,
    value: entry.value,
  }
}

/**
 * `bridge(options)` with the `context` extension: use it in place of `bridge` (`tm.use(contextBridge({
 * transport }))`). A context of more than `MAX_CONTEXT_ENTRIES` entries or `MAX_CONTEXT_TOTAL` characters of
 * JSON is not sent: the page sends an empty context instead (the server forgets the old one) and reports
 * `invalid_context`. The consumer it returns has the bridge's `clientId`.
 */
export function contextBridge(options: ContextBridgeOptions): Bridge {
  const inner = options.transport
  const clientId = options.clientId ?? getClientId()
  const intervalMs = options.intervalMs ?? CONTEXT_INTERVAL_MS
  let accepted = false
  let offered = false
  /** An offer of ours waits for the end of the manifest's send: the base bridge's own offer takes it along. */
  let pending = false
  /** The base bridge offers extensions of its own: it takes the server's answers too. */
  let baseOffers = false
  /** The JSON text of the entries last handed to the transport; undefined: the server has none from us. */
  let sentText: string | undefined
  let sentAt = Number.NEGATIVE_INFINITY
  let timer: ReturnType<typeof setTimeout> | undefined
  let latest: ContextSnapshot | undefined
  let host: ConsumerHost | undefined

  /** Sends an offer (ours, or the base bridge's with ours added); a failed send offers again after the next manifest. */
  const sendOffer = (message: unknown): void | Promise<void> => {
    offered = true
    pending = false
    const out = inner.send(message)
    Promise.resolve(out).catch(() => {
      offered = false
    })
    return out
  }

  const flush = (): void => {
    timer = undefined
    if (!accepted || !latest || !host) return
    let entries = latest.entries.map(wireEntry)
    let text = JSON.stringify(entries)
    if (entries.length > MAX_CONTEXT_ENTRIES || text.length > MAX_CONTEXT_TOTAL) {
      host.report(
        'invalid_context',
        `The readable context (${entries.length} entries, ${text.length} characters of JSON) is larger than ` +
          `the bridge sends (${MAX_CONTEXT_ENTRIES} entries, ${MAX_CONTEXT_TOTAL} characters): an empty context was sent`,
      )
      entries = []
      text = '[]'
    }
    if (text === sentText) return
    sentText = text
    sentAt = Date.now()
    const message = { protocol: PROTOCOL_VERSION, type: 'context', clientId, rev: latest.rev, entries }
    Promise.resolve(inner.send(message)).catch(() => {
      if (sentText === text) sentText = undefined // not sent: the next change sends it again
    })
  }

  /** Sends the latest context now, or when the interval since the last one has passed. */
  const schedule = (): void => {
    if (!accepted || timer !== undefined) return
    timer = setTimeout(flush, Math.max(0, sentAt + intervalMs - Date.now()))
  }

  const transport: BridgeTransport = {
    send(message) {
      const type = peek(message).type
      const offer = type === 'extensions' ? (message as { offer?: unknown }).offer : undefined
      if (Array.isArray(offer)) {
        baseOffers = true
        if (offered && !pending) return inner.send(message)
        return sendOffer({ ...(message as object), offer: [...offer, CONTEXT_EXTENSION] })
      }
      const out = inner.send(message)
      if (!offered && !pending && type === 'manifest') {
        pending = true
        queueMicrotask(() => {
          if (pending)
            sendOffer({
              protocol: PROTOCOL_VERSION,
              type: 'extensions',
              clientId,
              offer: [CONTEXT_EXTENSION],
            })
        })
      }
      return out
    },
    onMessage(handler) {
      return inner.onMessage((raw) => {
        const { type, clientId: to } = peek(raw)
        if (type === 'extensions' && to === clientId) {
          const copy = boundedCopy(raw, { maxBytes: 4096, maxDepth: 4 })
          const checked = copy.ok ? validateExtensionMessage(copy.value, 'toPage') : undefined
          if (checked?.ok && checked.message.accept.includes(CONTEXT_EXTENSION)) {
            accepted = true
            sentText = undefined // a server that (again) accepts has no context from us yet
            schedule()
          }
          if (baseOffers) handler(raw) // the base bridge's extensions read the same answer
          return
        }
        handler(raw)
      })
    },
  }
  if (inner.onError) transport.onError = (handler) => inner.onError!(handler)
  if (inner.onState) transport.onState = (handler) => inner.onState!(handler)
  if (inner.close) transport.close = () => inner.close!()

  // The base gets the bridge's options only (a base's own interval is set where it is made).
  const { base: make = bridge, intervalMs: _interval, ...bridgeOptions } = options
  const base = make({ ...bridgeOptions, transport, clientId })
  const consumer = (h: ConsumerHost): (() => void) => {
    host = h
    const off = h.watchContext({ caller: 'inapp' }, (snapshot) => {
      latest = snapshot
      schedule()
    })
    const detach = base(h)
    return () => {
      detach?.()
      off()
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      host = undefined
    }
  }
  return Object.assign(consumer, { clientId })
}

export { CONTEXT_INTERVAL_MS } from '@toolmark/protocol/extensions'
