import type { ConsumerHost, Manifest, ToolmarkConsumer } from '@toolmark/core'
import { newId } from '@toolmark/core/adapter'
import { DEFAULT_MAX_MESSAGE_BYTES, PROTOCOL_VERSION } from '@toolmark/protocol'
import { delivery } from './delivery.ts'
import { inbound } from './inbound.ts'
import { outbound } from './outbound.ts'
import { teardown } from './teardown.ts'
import type { BridgeTransport } from './transport.ts'

export { ANSWERED_ID_MEMORY } from './inbound.ts'

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
  /**
   * The id of the conversation the transport is bound to (the one in its URL or channel). Every call the
   * bridge runs carries it (`CallOptions.conversation`), so an approval remembered "for this conversation"
   * counts for that conversation's later calls, and confirmation cards offer that choice. Without it the
   * choice is not offered. A string of 1 to 256 characters; anything else throws.
   */
  conversation?: string
}

/** A bridge consumer for `tm.use(...)`, with the clientId it speaks for. */
export interface Bridge extends ToolmarkConsumer {
  readonly clientId: string
}

let pageClientId: string | undefined

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
  const conversation = options.conversation
  if (
    conversation !== undefined &&
    !(typeof conversation === 'string' && conversation && conversation.length <= 256)
  )
    throw new TypeError('conversation must be a string of 1 to 256 characters')

  const consumer = (tm: ConsumerHost): (() => void) =>
    attach(tm, transport, clientId, onChange, maxBytes, conversation)
  return Object.assign(consumer, { clientId })
}

/**
 * One attach: the transport's messages go through the inbound pipeline (inbound.ts), answers and
 * `confirmed` leave through one outbound (outbound.ts, delivery.ts), and disposing undoes it all
 * (teardown.ts). In this order: handlers on, the attach manifest, then what settled while detached.
 */
function attach(
  tm: ConsumerHost,
  transport: BridgeTransport,
  clientId: string,
  onChange: 'manifest' | 'changed',
  maxBytes: number,
  conversation: string | undefined,
): () => void {
  const out = outbound(tm, transport, clientId)
  const confirmations = delivery(tm, clientId, out)
  const messages = inbound(tm, clientId, maxBytes, out, confirmations, conversation)
  const offMessage = transport.onMessage(messages.receive)
  const offError = transport.onError?.((err) => out.fail('The transport reported an error', err))
  // For inspectors: the connection state when the transport reports one, else `attached`.
  const say = (state: string): void => tm.status('bridge', { state, clientId })
  say('attached')
  const offState = transport.onState?.(say)
  // The attach manifest, then one manifest (or `changed`) per later revision.
  let attached = false
  const offWatch = tm.watch({ caller: 'inapp' }, ({ rev, tools }: Manifest): void => {
    if (!attached || onChange === 'manifest')
      out.send({ protocol: PROTOCOL_VERSION, type: 'manifest', clientId, rev, tools: tools as never })
    else out.send({ protocol: PROTOCOL_VERSION, type: 'changed', clientId, rev })
  })
  attached = true
  confirmations.flush()
  // Detaching: nothing more is sent; confirmations that settle from then on are kept for the next
  // attach; the subscriptions end; in-flight calls are aborted (their results are not sent).
  return teardown(transport, out.fail, [
    out.stop,
    confirmations.stop,
    offWatch,
    offMessage,
    offError,
    offState,
    () => tm.status('bridge', undefined),
    messages.stop,
  ])
}
