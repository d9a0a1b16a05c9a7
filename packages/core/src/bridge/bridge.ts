import { toJsonSafeResult } from '../call/serialize.ts'
import { ERROR_MESSAGES, UNKNOWN_TOOL_MESSAGE } from '../codes.ts'
import { newId } from '../ids.ts'
import { boundedCopy } from '../protocol/bounded-copy.ts'
import type { AgentToPageMessage, PageToAgentMessage } from '../protocol/messages.ts'
import { DEFAULT_MAX_MESSAGE_BYTES, MAX_DEPTH, PROTOCOL_VERSION } from '../protocol/messages.ts'
import { validateMessage } from '../protocol/validate.ts'
import type {
  ConsumerHost,
  Manifest,
  Toolmark,
  ToolmarkConsumer,
  ToolmarkEvents,
  ToolResult,
} from '../types.ts'
import { CancelToken } from './cancel-token.ts'
import type { BridgeTransport } from './transport.ts'

/** How many answered call/describe ids the bridge remembers to ignore duplicates (each id is answered once; docs/protocol/v1.md, Rules). */
export const ANSWERED_ID_MEMORY = 1000

export interface BridgeOptions {
  transport: BridgeTransport
  /** `'manifest'` (default) sends the tool list on every revision; `'changed'` sends only the rev. */
  onChange?: 'manifest' | 'changed'
  /** Only `'inapp'` in protocol v1 (the default); anything else throws. */
  caller?: 'inapp'
  /** Inbound size limit in UTF-8 bytes of the JSON. Default 1048576. */
  maxMessageBytes?: number
  /** Override the page's clientId (tests). Default: one random id per page load. */
  clientId?: string
}

/** A bridge consumer for `tm.use(...)`, with the clientId it speaks for. */
export interface Bridge extends ToolmarkConsumer {
  readonly clientId: string
}

let pageClientId: string | undefined

/**
 * Deferred confirmations outlive a bridge attach (a provider remount, HMR): per registry and
 * clientId we remember which confirmIds our results carried, and keep outcomes that settle while
 * no bridge is attached (at most 100, like the pending cap) to send on the next attach.
 */
interface ClientState {
  readonly ours: Set<string>
  readonly undelivered: Map<string, ToolResult>
  deliver: ((confirmId: string, result: ToolResult) => void) | undefined
}
const clientStates = new WeakMap<Toolmark, Map<string, ClientState>>()

function clientState(tm: Toolmark, clientId: string): ClientState {
  let byClient = clientStates.get(tm)
  if (!byClient) {
    byClient = new Map()
    clientStates.set(tm, byClient)
  }
  let state = byClient.get(clientId)
  if (!state) {
    const st: ClientState = { ours: new Set(), undelivered: new Map(), deliver: undefined }
    state = st
    byClient.set(clientId, st)
    tm.events.on('confirm', (event) => {
      if (event.phase !== 'settled' || event.mode !== 'deferred' || event.result === undefined) return
      if (!st.ours.delete(event.confirmId)) return
      if (st.deliver) return st.deliver(event.confirmId, event.result)
      st.undelivered.set(event.confirmId, event.result)
      if (st.undelivered.size > 100) st.undelivered.delete(st.undelivered.keys().next().value as string)
    })
  }
  return state
}

/** This page load's clientId (a full reload gets a new one): minted once with `newId()`, shared by every bridge on the page. */
export function getClientId(): string {
  pageClientId ??= newId()
  return pageClientId
}

/**
 * The page side of bridge protocol v1. Attach with `tm.use(bridge({ transport }))`: it sends the
 * manifest on attach and on every revision, answers each addressed call/describe exactly once, and
 * sends `confirmed` when a deferred confirmation from one of its calls settles. Every inbound value
 * is bounded, copied, filtered by clientId and validated before anything runs; invalid messages are
 * dropped with the error event `invalid_message` and never answered. Disposing it unsubscribes,
 * aborts in-flight calls and closes the transport.
 */
export function bridge(options: BridgeOptions): Bridge {
  const { transport } = options
  if (!transport || typeof transport.send !== 'function' || typeof transport.onMessage !== 'function') {
    throw new TypeError('bridge() needs a transport with send() and onMessage()')
  }
  if (options.caller !== undefined && options.caller !== 'inapp') {
    throw new TypeError(
      `bridge() caller must be 'inapp' in protocol v1, got ${JSON.stringify(options.caller)}`,
    )
  }
  const onChange = options.onChange ?? 'manifest'
  if (onChange !== 'manifest' && onChange !== 'changed')
    throw new TypeError("onChange must be 'manifest' or 'changed'")
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  if (!Number.isInteger(maxBytes) || maxBytes <= 0)
    throw new TypeError('maxMessageBytes must be a positive integer')
  const clientId = options.clientId ?? getClientId()

  const consumer = (tm: ConsumerHost): (() => void) => attach(tm, transport, clientId, onChange, maxBytes)
  return Object.assign(consumer, { clientId })
}

function attach(
  tm: ConsumerHost,
  transport: BridgeTransport,
  clientId: string,
  onChange: 'manifest' | 'changed',
  maxBytes: number,
): () => void {
  const inflight = new Map<string, { controller: CancelToken; callId: string }>()
  const answered = new Set<string>()
  /** callId → protocol id of our in-flight calls (for confirmations that settle early). */
  const callIds = new Map<string, string>()
  const state = clientState(tm, clientId)
  /** Settlements that arrived before their needs_confirmation result went out. */
  const early = new Map<string, ToolResult>()
  let disposed = false

  const fail = (message: string, cause?: unknown): void => report(tm, 'transport_failed', message, cause)
  const send = (message: PageToAgentMessage): void => {
    if (disposed) return
    try {
      const sent = transport.send(message)
      if (sent && typeof (sent as Promise<void>).then === 'function') {
        ;(sent as Promise<void>).then(undefined, (err: unknown) => fail('The transport failed to send', err))
      }
    } catch (err) {
      fail('The transport failed to send', err)
    }
  }
  const remember = (id: string): void => {
    answered.add(id)
    if (answered.size > ANSWERED_ID_MEMORY) answered.delete(answered.values().next().value as string)
  }
  const answer = (id: string, result: ToolResult): void => {
    remember(id)
    const safe = toJsonSafeResult(result, (err) => fail('A result was not serializable', err))
    send({ protocol: PROTOCOL_VERSION, type: 'result', clientId, id, result: safe })
  }
  let attached = false
  const onManifest = ({ rev, tools }: Manifest): void => {
    if (!attached || onChange === 'manifest')
      send({ protocol: PROTOCOL_VERSION, type: 'manifest', clientId, rev, tools: tools as never })
    else send({ protocol: PROTOCOL_VERSION, type: 'changed', clientId, rev })
  }

  const onMessage = (raw: unknown): void => {
    if (disposed) return
    try {
      receive(raw)
    } catch (err) {
      report(tm, 'invalid_message', 'The bridge failed to handle an inbound message', err)
    }
  }
  const receive = (raw: unknown): void => {
    const copied = boundedCopy(raw, { maxBytes, maxDepth: MAX_DEPTH })
    if (!copied.ok) return report(tm, 'invalid_message', `Inbound message dropped: ${copied.reason}`)
    const msg = copied.value as Record<string, unknown> | null
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      return report(tm, 'invalid_message', 'Inbound message dropped: not an object')
    }
    // Rule 1: another page's message is ignored silently.
    if (typeof msg.clientId === 'string' && msg.clientId !== clientId) return
    // Rule 4, checked before strict validation so a future version's message is answered.
    if (msg.protocol !== PROTOCOL_VERSION) {
      const id = msg.id
      if (typeof id === 'string' && msg.clientId === clientId && !answered.has(id) && !inflight.has(id)) {
        remember(id)
        send({
          protocol: PROTOCOL_VERSION,
          type: 'result',
          clientId,
          id,
          result: { status: 'error', message: ERROR_MESSAGES.unsupportedProtocol },
        })
      } else report(tm, 'invalid_message', 'Inbound message dropped: unsupported protocol')
      return
    }
    const checked = validateMessage(msg, 'toPage')
    if (!checked.ok) return report(tm, 'invalid_message', `Inbound message dropped: ${checked.reason}`)
    dispatch(checked.message)
  }

  const dispatch = (msg: AgentToPageMessage): void => {
    if (msg.type === 'cancel') {
      inflight.get(msg.id)?.controller.abort()
      return
    }
    const id = msg.id
    if (answered.has(id) || inflight.has(id)) return // Rule 2: duplicates are ignored.
    if (msg.type === 'describe') {
      const entry = tm.describe(msg.tool, { caller: 'inapp' })
      answer(
        id,
        entry
          ? { status: 'ok', data: entry }
          : { status: 'refused', code: 'unknown_tool', message: UNKNOWN_TOOL_MESSAGE, rev: tm.rev },
      )
      return
    }
    const controller = new CancelToken()
    const callId = newId()
    inflight.set(id, { controller, callId })
    callIds.set(callId, id)
    const options = { caller: 'inapp' as const, signal: controller.signal, callId }
    tm.call(msg.tool, msg.input, msg.rev === undefined ? options : { ...options, rev: msg.rev }).then(
      (result) => {
        inflight.delete(id)
        callIds.delete(callId)
        if (disposed) return
        answer(id, result)
        if (result.status === 'needs_confirmation') {
          const settled = early.get(callId)
          early.delete(callId)
          if (settled) sendConfirmed(result.confirmId, settled)
          else state.ours.add(result.confirmId)
        }
      },
    )
  }

  const sendConfirmed = (confirmId: string, result: ToolResult): void => {
    const safe = toJsonSafeResult(result, (err) => fail('A result was not serializable', err))
    send({ protocol: PROTOCOL_VERSION, type: 'confirmed', clientId, confirmId, result: safe })
  }
  /** A settlement for one of our calls whose needs_confirmation result has not gone out yet. */
  const onConfirm = (event: ToolmarkEvents['confirm']): void => {
    if (event.phase !== 'settled' || event.mode !== 'deferred' || event.result === undefined) return
    if (!state.ours.has(event.confirmId) && callIds.has(event.callId)) early.set(event.callId, event.result)
  }

  const offMessage = transport.onMessage(onMessage)
  const offError = transport.onError?.((err) => fail('The transport reported an error', err))
  const offConfirm = tm.events.on('confirm', onConfirm)
  // The attach manifest, then one manifest (or `changed`) per later revision.
  const offSubscribe = tm.watch({ caller: 'inapp' }, onManifest)
  attached = true
  state.deliver = sendConfirmed
  for (const [confirmId, result] of state.undelivered) sendConfirmed(confirmId, result)
  state.undelivered.clear()

  return () => {
    if (disposed) return
    disposed = true
    if (state.deliver === sendConfirmed) state.deliver = undefined
    offSubscribe()
    offConfirm()
    offMessage()
    offError?.()
    for (const { controller } of inflight.values()) controller.abort()
    inflight.clear()
    try {
      const closed = transport.close?.()
      if (closed && typeof (closed as Promise<void>).then === 'function') {
        ;(closed as Promise<void>).then(undefined, (err: unknown) =>
          report(tm, 'transport_failed', 'close failed', err),
        )
      }
    } catch (err) {
      report(tm, 'transport_failed', 'The transport failed to close', err)
    }
  }
}

/** Reports through the registry's error event (the bridge has no dev-throw: inbound is data, not config). */
function report(
  tm: ConsumerHost,
  code: 'invalid_message' | 'transport_failed',
  message: string,
  cause?: unknown,
): void {
  tm.report(code, message, cause === undefined ? {} : { cause })
}
