/** What `tm.events.on` delivers. */

import type { Issue, ToolResult } from '@toolmark/protocol'
import type { ErrorEventCode } from '../codes.ts'
import type { ConfirmationCardData, ConfirmMode } from './confirm.ts'
import type { Caller, HintClass, ToolCaller } from './policy.ts'

/** Events. Each `on` returns an unsubscribe function. */
export interface ToolmarkEvents {
  call: { callId: string; tool: string; caller: Caller; input: unknown }
  result: {
    callId: string
    tool: string
    caller: Caller
    result: ToolResult
    durationMs: number
    /** How long the call waited in its scope's queue before `run` started (only for a call that started). */
    queuedMs?: number
    /** The id of the grant that let the call run without a confirmation card. */
    grant?: string
  }
  /** A running tool reported progress with `ctx.progress` (only the fields it gave, checked). */
  progress: ToolProgressEvent
  /** A call that never reached its tool's `run`, and why (see `CallObserver.blocked`). */
  blocked: CallBlocked
  /** A consumer published (or, with `status` undefined, withdrew) its status (see `ConsumerHost.status`). */
  status: { name: string; status: ConsumerStatus | undefined }
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

/** The `progress` event: what a running call reported, with the call it belongs to. */
export interface ToolProgressEvent {
  callId: string
  tool: string
  caller: Caller
  /** From 0 to 1. */
  fraction?: number
  /** At most 200 characters. */
  message?: string
  /** Preliminary data, as the tool gave it. */
  data?: unknown
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

/**
 * Why a call never reached its tool's `run`, as data (the devtools put it in words):
 * - `not_allowed`: `rule` is the policy rule: the caller, the tool's hint class and the classes the
 *   policy allows that caller; `noConfirmHandler` when the class is allowed but the tool must be
 *   confirmed inline and the app has no `confirm` handler. For a value that is not a caller, `rule`
 *   holds only `caller`.
 * - `unknown_tool` / `stale`: no visible tool has this name; `stale` when it went away after the
 *   revision `rev` the caller saw. `currentRev` is the registry's revision. `callers` is set when
 *   the tool exists but its `callers` option hides it from this caller (the callers it lists).
 * - `invalid`: the input's validation `issues`.
 * - `busy`: the scope's queue was full. `cancelled`: aborted before `run` started.
 * - any other refusal code (an approval that expired or went stale before its run started).
 */
export type BlockedReason =
  | {
      code: 'not_allowed'
      rule: { caller: string; hintClass?: HintClass; allowed?: HintClass[]; noConfirmHandler?: true }
    }
  | { code: 'unknown_tool' | 'stale'; rev: number | undefined; currentRev: number; callers?: ToolCaller[] }
  | { code: 'invalid'; issues: Issue[] }
  | { code: 'busy' | 'cancelled' | 'confirmation_expired' | 'error' }

/** The `blocked` event: a call answered before its tool's `run` started. */
export interface CallBlocked {
  callId: string
  tool: string
  /** The caller as passed (not a {@link Caller} only when the reason says so). */
  caller: string
  reason: BlockedReason
  /** What the caller was answered. */
  result: ToolResult
  /** The input, redacted at the tool's sensitive paths; absent when the tool is not known. */
  input?: unknown
}

/**
 * A small live status a consumer publishes for inspectors such as the devtools: JSON-safe, short,
 * and never a secret (no token, no pairing code, no input).
 */
export interface ConsumerStatus {
  /** One word: `connecting`, `open`, `closed`, `pairing`, `paired`, `running`, ... */
  state: string
  /** Further facts (a clientId, published tool names, ...), JSON-safe. */
  [detail: string]: unknown
}

export type ToolmarkEventName = keyof ToolmarkEvents
