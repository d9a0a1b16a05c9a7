import type { BridgeTransport } from './transport.ts'

/**
 * The dispose function of one attach (idempotent): runs `steps` in order (each undoes one part of
 * the attach), then closes the transport; a close that throws or rejects goes to `fail` (the
 * bridge reports it as `transport_failed`).
 */
export function teardown(
  transport: BridgeTransport,
  fail: (message: string, cause: unknown) => void,
  steps: ReadonlyArray<(() => void) | undefined>,
): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    for (const step of steps) step?.()
    try {
      const closed = transport.close?.()
      if (closed && typeof (closed as Promise<void>).then === 'function') {
        ;(closed as Promise<void>).then(undefined, (err: unknown) => fail('close failed', err))
      }
    } catch (err) {
      fail('The transport failed to close', err)
    }
  }
}
