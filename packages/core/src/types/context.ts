/** Readable context: read-only data a page shows the agent (the current record, the user's selection). */

import type { SensitivePathsSource } from '../tool/redact.ts'

/**
 * A readable context entry as declared with `tm.context(...)` or `scope.context(...)`. It lives like a
 * tool: in its scope, until its handle or scope is disposed.
 */
export interface ContextDefinition {
  /** Name segment (`A-Z a-z 0-9 _ - .`); the scope path is prepended like a tool's. */
  name: string
  /** Short human title. */
  title?: string
  /** What the value is, for the agent. */
  description: string
  /**
   * The value, JSON only (plain objects, arrays, strings, finite numbers, booleans, `null`). At most
   * {@link MAX_CONTEXT_CHARS} characters of JSON once masked; a value that is not JSON or is larger
   * becomes `null` (an `invalid_context` error event; it throws with `dev: true`).
   */
  value: unknown
  /** Paths masked as `'[redacted]'` before any consumer sees the value, as a tool's input is masked. */
  sensitivePaths?: SensitivePathsSource
}

/** What `tm.context(...)` returns: update the value, or end the entry. */
export interface ContextHandle {
  /** Full name (scope path included). */
  readonly name: string
  /**
   * Replace the value. A value whose masked JSON equals the current one changes nothing (no
   * notification); a bad value becomes `null` as in {@link ContextDefinition.value}. Ignored once disposed.
   */
  set(value: unknown): void
  /** Remove the entry. Idempotent. */
  dispose(): void
}

/** One entry as consumers read it: masked, JSON only. */
export interface ContextEntry {
  name: string
  title?: string
  description: string
  /** The masked value (a fresh copy per change; do not mutate). */
  value: unknown
  /** The context revision at which this entry last changed: compare it to send only what changed. */
  rev: number
}

/** The context entries a caller may see, sorted by name, with the context revision. */
export interface ContextSnapshot {
  /** Bumped by every added, removed or changed entry. */
  rev: number
  entries: readonly ContextEntry[]
}
