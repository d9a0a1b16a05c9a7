/** Confirmations: what a card shows, what the app answers, what stays pending. */
import type { FieldChange, Issue } from '@toolmark/protocol'
import type { Remember } from './grants.ts'
import type { Caller } from './policy.ts'

/**
 * Outcome of a confirmation: approved (optionally with edited input) or not. `remember` keeps the
 * approval as a grant (only for a card with `grantable`; default `'once'`).
 */
export type ConfirmOutcome =
  | { approved: true; input?: unknown; remember?: Remember }
  | { approved: false; reason?: string }

/** Outcome of `ctx.confirm(...)`. It never throws. */
export type CtxConfirmOutcome =
  | { approved: true; input?: unknown }
  | { approved: false; reason: 'rejected' | 'confirmation_unavailable' | 'invalid' | 'expired' | 'cancelled' }

/** What a confirmation card needs to render a request (inline or deferred). */
export interface ConfirmationCardData {
  confirmId: string
  /** Full tool name. */
  tool: string
  title?: string
  /** App-localized summary of what will happen. */
  summary: string
  /** The call's string `name` argument when present (what the action targets). */
  target?: string
  /** True for destructive tools: render a Delete button and "This action cannot be undone.". */
  destructive: boolean
  /**
   * Present (`true`) when the tool declares `undoable`: the page offers an undo afterwards, so the card
   * says so instead of "This action cannot be undone.".
   */
  undoable?: true
  /** The caller that asked. */
  caller: Caller
  /** The input with `'[redacted]'` at sensitive paths. */
  input: unknown
  /** Redacted field changes (`[]` for plain tools). */
  changes: FieldChange[]
  /** Epoch milliseconds after which approval is refused. */
  expiresAt: number
  /**
   * Present (`true`) when the approval may be remembered (the tool is `grantable` and the registry
   * has a grant store): offer "allow once / for this conversation / always for N days".
   */
  grantable?: true
  /** The call's conversation id, when it has one: "for this conversation" is offered only then. */
  conversation?: string
}

/** An inline confirmation request handed to the app's `confirm` handler. */
export interface ConfirmRequest extends ConfirmationCardData {
  /** `call` before a consequential tool runs; `ctx` for `ctx.confirm(...)` inside `run`. */
  kind: 'call' | 'ctx'
  /** Aborted when the call is cancelled or the request expires: close the prompt. */
  signal: AbortSignal
  /**
   * Present when the approver's previous edit was invalid (e.g. "Re-enter sensitive field"): the
   * request is asked again with what to fix, and stays open until approved, rejected or expired.
   */
  issues?: Issue[]
}

/** The app's inline confirmation handler: ask the user, resolve with their answer. */
export type ConfirmHandler = (request: ConfirmRequest) => ConfirmOutcome | Promise<ConfirmOutcome>

/** A deferred confirmation waiting for `tm.confirmPending(...)`. */
export interface PendingConfirmation extends ConfirmationCardData {
  /** Epoch milliseconds when it was created. */
  createdAt: number
  /** The call that created it. */
  callId: string
}

export type ConfirmMode = 'deferred' | 'inline'
