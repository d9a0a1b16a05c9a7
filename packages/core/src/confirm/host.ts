import type { ErrorEventCode } from '../codes.ts'
import type { Emitter } from '../events.ts'
import type { Caller, ConfirmMode, ToolmarkErrorEvent, ToolmarkOptions } from '../types.ts'
import type { PendingStore } from './pending.ts'

/**
 * What confirmations need from their registry. The registry implements it; nothing in `confirm/`
 * imports the registry itself.
 */
export interface ConfirmHost {
  readonly dev: boolean
  readonly options: Pick<ToolmarkOptions, 'confirm' | 'requiresConfirmation' | 'grants'>
  /** The confirmation mode of each non-human caller. */
  readonly modes: Readonly<Record<Exclude<Caller, 'human'>, ConfirmMode>>
  readonly emitter: Emitter
  /** Open confirmations, inline and deferred (created with the first, once the confirmation module is loaded). */
  readonly pending: PendingStore
  readonly expiryMs: number
  /** Emits an `error` event. */
  report(code: ErrorEventCode, message: string, extra?: Partial<ToolmarkErrorEvent>): void
}
