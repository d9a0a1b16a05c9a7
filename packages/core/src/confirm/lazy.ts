/**
 * Confirmations load on demand: the card, inline and deferred confirmations and the approver's edit
 * (`chunk.ts`) are a chunk of their own, so an app whose tools never ask for confirmation does not
 * load them. Registering a tool that confirms (or any tool under `requiresConfirmation`) starts the
 * load, so it has usually arrived when the first confirmation is needed; a call that needs it before
 * waits for it (the call's deadline runs meanwhile, as for an asynchronous validator). Once loaded
 * (by any registry), confirmations start synchronously, as before. A failed load is retried by the
 * next confirmation; the call that hit it answers `error "Tool failed"` with a `tool_threw` event.
 */
export type Confirmations = typeof import('./chunk.ts')

let loaded: Confirmations | undefined
let loading: Promise<Confirmations> | undefined

/** The confirmation module once it has loaded, else undefined. */
export function loadedConfirmations(): Confirmations | undefined {
  return loaded
}

/** Loads the confirmation module (once; again after a failure). */
export function loadConfirmations(): Promise<Confirmations> {
  loading ??= import('./chunk.ts').then(
    (m) => {
      loaded = m
      return m
    },
    (err: unknown) => {
      loading = undefined
      throw err
    },
  )
  return loading
}

/** Makes the confirmation module loaded without `import()` (the testing entry imports it statically). */
export function useConfirmations(m: Confirmations): void {
  loaded = m
}

/** Starts loading the confirmation module ahead of its first use; a failure waits for that use. */
export function preloadConfirmations(): void {
  if (!loaded) loadConfirmations().catch(() => {})
}
