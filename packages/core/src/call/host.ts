import type { ErrorEventCode } from '../codes.ts'
import type { ConfirmHost } from '../confirm/host.ts'
import type { Entry } from '../tool/entry.ts'
import type { Caller, HintClass } from '../types.ts'
import type { Deadlines } from './deadlines.ts'
import type { UndoStore } from './undo.ts'

/**
 * What the call pipeline needs from its registry: lookup, policy, revisions, the shared deadline
 * timer and the stores. The registry implements it; nothing in `call/` imports the registry itself.
 */
export interface CallHost extends ConfirmHost {
  readonly timeoutMs: number
  readonly graceMs: number
  readonly deadlines: Deadlines
  readonly undoStore: UndoStore
  /** The current revision. */
  readonly rev: number
  /** A visible tool the caller may see, or undefined. */
  lookup(name: string, caller: Caller | undefined): Entry | undefined
  /** The hint classes the policy allows each caller (for the rule a refusal reports). */
  readonly policy: ReadonlyMap<Caller, ReadonlySet<HintClass>>
  /** Whether `caller` may see and call `entry`. */
  allows(entry: Entry, caller: Caller): boolean
  /** Did `name` disappear after revision `rev`? */
  wentStale(name: string, rev: number | undefined): boolean
  /** A development warning event. */
  warn(code: ErrorEventCode, message: string, tool?: string): void
}
