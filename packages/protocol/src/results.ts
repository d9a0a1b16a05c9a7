/** What every call answers: the six result shapes, plain JSON, never an exception. Part of protocol v1. */
import type { RefusedCode } from './codes.ts'

/** One validation problem. `path` is dot-joined (`cards.0.cvc`), `''` for the root. */
export interface Issue {
  path: string
  message: string
}

/** A field-level change shown to the user before approval. Sensitive values read `'[redacted]'`. */
export interface FieldChange {
  path: string
  before?: unknown
  after?: unknown
}

/** Who ended a cancelled call. */
export type CancelledBy = 'operator' | 'signal' | 'policy'

export interface OkResult<T = unknown> {
  status: 'ok'
  /** Absent means "no value". */
  data?: T
}

export interface InvalidResult {
  status: 'invalid'
  issues: Issue[]
}

export interface RefusedResult {
  status: 'refused'
  code: RefusedCode
  message: string
  /** Only for `unknown_tool` and `stale`: the registry's current revision. */
  rev?: number
}

export interface NeedsConfirmationResult {
  status: 'needs_confirmation'
  confirmId: string
  summary: string
  changes: FieldChange[]
}

export interface CancelledResult {
  status: 'cancelled'
  by: CancelledBy
}

export interface ErrorResult {
  status: 'error'
  message: string
}

/** Every outcome of a call: plain JSON, never an exception. */
export type ToolResult<T = unknown> =
  | OkResult<T>
  | InvalidResult
  | RefusedResult
  | NeedsConfirmationResult
  | CancelledResult
  | ErrorResult
