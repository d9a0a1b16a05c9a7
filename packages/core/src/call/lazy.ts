import { onDemand } from '../on-demand.ts'

/**
 * The call pipeline loads on demand (`chunk.ts`, a chunk of its own): a page loads the registry up
 * front, and what runs a call once a caller is there. Registering the first tool starts the load, so
 * it has usually arrived before the first call; a call made before waits for it (bounded by the
 * call's deadline and its signal) and then goes through the pipeline as if it had just been made.
 * Once loaded (by any registry), calls are synchronous up to the tool's own promise, as before. A
 * failed load is retried by the next call; the call that hit it answers `error "Tool failed"` with a
 * `tool_threw` event.
 */
export type CallChunk = typeof import('./chunk.ts')

/** The on-demand pipeline (the testing entry sets `value` to its static import). */
export const callChunk = onDemand<CallChunk>(() => import('./chunk.ts'))

/** Starts loading the pipeline ahead of its first use; a failure waits for that use. */
export function preloadCallChunk(): void {
  if (!callChunk.value) callChunk.load().catch(() => {})
}
