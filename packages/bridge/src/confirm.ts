// "@toolmark/bridge/confirm": the page side of bridge v1's opt-in `confirm` extension.
import type { ConsumerHost, ToolResult } from '@toolmark/core'
import { type ConfirmMessage, validateConfirmMessage } from '@toolmark/protocol/extensions'
import type { BridgeExtension } from './extension.ts'

export type { BridgeExtension } from './extension.ts'

/**
 * The `confirm` extension for `bridge({ transport, extensions: [confirmExtension] })`. The page announces it,
 * and the server may then send the signed-in user's answer to one of this page's deferred confirmations (the
 * user approved or rejected it in a chat front end, such as an AG-UI interrupt). The answer goes through
 * `tm.confirmPending` exactly like an answer given in the page: single use, expiry, the revision check, edited
 * input validated again. Its return value answers the message's id (`invalid` leaves the confirmation open);
 * the `confirmed` follows as for any other answer.
 */
export const confirmExtension: BridgeExtension = {
  name: 'confirm',
  type: 'confirm',
  validate: validateConfirmMessage,
  run(tm: ConsumerHost, message: { id: string }): Promise<ToolResult> {
    const m = message as ConfirmMessage
    return tm.confirmPending(
      m.confirmId,
      m.approved
        ? m.input === undefined
          ? { approved: true }
          : { approved: true, input: m.input }
        : m.reason === undefined
          ? { approved: false }
          : { approved: false, reason: m.reason },
    )
  },
}
