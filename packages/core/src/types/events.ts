/** What `tm.events.on` delivers. */

import type { ToolResult } from '@toolmark/protocol'
import type { ErrorEventCode } from '../codes.ts'
import type { ConfirmationCardData, ConfirmMode } from './confirm.ts'
import type { Caller } from './policy.ts'

/** Events. Each `on` returns an unsubscribe function. */
export interface ToolmarkEvents {
  call: { callId: string; tool: string; caller: Caller; input: unknown }
  result: { callId: string; tool: string; caller: Caller; result: ToolResult; durationMs: number }
  confirm:
    | { phase: 'requested'; mode: ConfirmMode; request: ConfirmationCardData; callId: string }
    | {
        phase: 'settled'
        mode: ConfirmMode
        confirmId: string
        callId: string
        tool: string
        outcome: 'approved' | 'rejected' | 'expired' | 'stale' | 'cancelled'
        /** Deferred only: the final result, what a bridge sends as `confirmed`. */
        result?: ToolResult
      }
  interaction: { kind: 'approved' | 'rejected'; confirmId: string; tool: string }
  change: { rev: number }
  error: ToolmarkErrorEvent
}

export interface ToolmarkErrorEvent {
  code: ErrorEventCode
  message: string
  level: 'error' | 'warning'
  tool?: string
  callId?: string
  /** The underlying error, page-side only. */
  cause?: unknown
}

export type ToolmarkEventName = keyof ToolmarkEvents
