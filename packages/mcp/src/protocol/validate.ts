import type { PageToRelay, PairingDirection, RelayToPage } from './messages.ts'
import { readFrame } from './read.ts'
import { toPageProblem } from './to-page.ts'
import { toRelayProblem } from './to-relay.ts'

/** The outcome of `validatePairingMessage` and `readPairingMessage`: the message, or why it was dropped. */
export type PairingValidation<M> = { ok: true; message: M } | { ok: false; reason: string }

/**
 * Validates one pairing message without dependencies: `'toRelay'` accepts page → relay messages
 * (`hello`, `manifest`, `result`), `'toPage'` relay → page messages (`pairing`, `paired`, `call`,
 * `cancel`, `error`). Every message is strict at the top level (an unknown property is rejected), as
 * are `call.meta` and tool results; manifest entries and hints accept unknown properties. A `hello`
 * whose `v` is not 1 is rejected with reason `'unsupported pairing protocol'`. Returns the value
 * itself on success; never throws. The JSON Schemas (`pairingSchemas`) accept exactly the same.
 */
export function validatePairingMessage(value: unknown, direction: 'toRelay'): PairingValidation<PageToRelay>
export function validatePairingMessage(value: unknown, direction: 'toPage'): PairingValidation<RelayToPage>
export function validatePairingMessage(
  value: unknown,
  direction: PairingDirection,
): PairingValidation<PageToRelay | RelayToPage>
export function validatePairingMessage(
  value: unknown,
  direction: PairingDirection,
): PairingValidation<PageToRelay | RelayToPage> {
  let reason: string | undefined
  try {
    reason =
      direction === 'toRelay'
        ? toRelayProblem(value)
        : direction === 'toPage'
          ? toPageProblem(value)
          : 'unknown direction'
  } catch {
    reason = 'message could not be read'
  }
  return reason === undefined
    ? { ok: true, message: value as PageToRelay | RelayToPage }
    : { ok: false, reason }
}

/**
 * Reads one WebSocket text frame as a pairing message: `readFrame` (at most `MAX_PAIRING_MESSAGE`
 * characters of JSON nested at most `MAX_PAIRING_DEPTH` deep), then `validatePairingMessage`.
 * Never throws.
 */
export function readPairingMessage(data: unknown, direction: 'toRelay'): PairingValidation<PageToRelay>
export function readPairingMessage(data: unknown, direction: 'toPage'): PairingValidation<RelayToPage>
export function readPairingMessage(
  data: unknown,
  direction: PairingDirection,
): PairingValidation<PageToRelay | RelayToPage> {
  const frame = readFrame(data)
  return frame.ok ? validatePairingMessage(frame.value, direction) : frame
}
