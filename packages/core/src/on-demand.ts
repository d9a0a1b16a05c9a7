/** A module loaded with `import()` when first needed (see call/lazy.ts and schema/lazy.ts). */
export interface OnDemand<T> {
  /** The module once it has loaded (or was handed over, as the testing entry does), else undefined. */
  value: T | undefined
  /** Loads the module: one load at a time, and again after a failed one. */
  load(): Promise<T>
}

/** The loader of one on-demand module; `importer` is its `import()`, written where bundlers see it. */
export function onDemand<T>(importer: () => Promise<T>): OnDemand<T> {
  let loading: Promise<T> | undefined
  const m: OnDemand<T> = {
    value: undefined,
    load: () =>
      (loading ??= importer().then(
        (loaded) => (m.value = loaded),
        (err: unknown) => {
          loading = undefined
          throw err
        },
      )),
  }
  return m
}
