import { onDemand } from '../on-demand.ts'

/**
 * What only some calls need loads on demand (`chunk.ts`, a chunk of its own): confirmations (the
 * card, inline and deferred confirmations, the approver's edit, the pending store), the wait for an
 * asynchronous validator and the run of an undo restorer. An app whose tools never confirm, validate
 * asynchronously or undo does not load it. Registering a tool that confirms (or any tool under
 * `requiresConfirmation`) starts the load, so it has usually arrived when the first confirmation is
 * needed; a call that needs it before waits for it (the call's deadline runs meanwhile). Once loaded
 * (by any registry), those calls go on synchronously, as before. A failed load is retried by the next
 * call that needs it; the call that hit it answers `error "Tool failed"` with a `tool_threw` event.
 */
export type CallExtras = typeof import('./chunk.ts')

/** The on-demand part of the pipeline (the testing entry sets `value` to its static import). */
export const extras = onDemand<CallExtras>(() => import('./chunk.ts'))

/** Starts loading the on-demand part ahead of its first use; a failure waits for that use. */
export function preloadExtras(): void {
  if (!extras.value) extras.load().catch(() => {})
}
