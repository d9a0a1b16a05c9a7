let override: boolean | undefined

/**
 * The single SSR switch: without `document`, registration and consumers are inert no-ops.
 * Tests flip it with `setIsServer`.
 */
export const environment = {
  isServer(): boolean {
    return override ?? typeof document === 'undefined'
  },
  /** Force server (`true`) or browser (`false`) mode; `undefined` restores detection. */
  setIsServer(value: boolean | undefined): void {
    override = value
  },
}
