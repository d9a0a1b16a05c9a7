import type { ConsumerHost, ToolResult } from '@toolmark/core'
import { toJsonSafeResult } from '@toolmark/core/adapter'
import type { PageToAgentMessage } from '@toolmark/protocol'
import { PROTOCOL_VERSION } from '@toolmark/protocol'
import type { BridgeTransport } from './transport.ts'

/** Where an attached bridge's messages leave the page. Once stopped, nothing more is sent. */
export interface Outbound {
  /** Sends one message. A transport that throws or rejects is reported as `transport_failed`. */
  send(message: PageToAgentMessage): void
  /** Answers the agent's message `id` with `result`, made JSON-safe first. */
  result(id: string, result: ToolResult): void
  /** Sends the outcome of a deferred confirmation, made JSON-safe first. */
  confirmed(confirmId: string, result: ToolResult): void
  /** Reports `transport_failed` through the registry's error event. */
  fail(message: string, cause?: unknown): void
  /** On detach: nothing is sent from now on. */
  stop(): void
}

/** The outbound side of one attach, speaking for `clientId`. */
export function outbound(tm: ConsumerHost, transport: BridgeTransport, clientId: string): Outbound {
  let stopped = false
  const fail = (message: string, cause?: unknown): void => report(tm, 'transport_failed', message, cause)
  const unserializable = (err: unknown): void => fail('A result was not serializable', err)
  const safe = (result: ToolResult): ToolResult => toJsonSafeResult(result, unserializable)
  const send = (message: PageToAgentMessage): void => {
    if (stopped) return
    try {
      const sent = transport.send(message)
      if (sent && typeof (sent as Promise<void>).then === 'function') {
        ;(sent as Promise<void>).then(undefined, (err: unknown) => fail('The transport failed to send', err))
      }
    } catch (err) {
      fail('The transport failed to send', err)
    }
  }
  return {
    send,
    result(id, result) {
      send({ protocol: PROTOCOL_VERSION, type: 'result', clientId, id, result: safe(result) })
    },
    confirmed(confirmId, result) {
      send({ protocol: PROTOCOL_VERSION, type: 'confirmed', clientId, confirmId, result: safe(result) })
    },
    fail,
    stop() {
      stopped = true
    },
  }
}

/** Reports through the registry's error event (the bridge has no dev-throw: inbound is data, not config). */
export function report(
  tm: ConsumerHost,
  code: 'invalid_message' | 'transport_failed',
  message: string,
  cause?: unknown,
): void {
  tm.report(code, message, cause === undefined ? {} : { cause })
}
