/**
 * One error shape for both SDKs' failures: `<provider>: HTTP <status> <body>` for an HTTP error
 * (after the SDK's retries), `<provider>: <type>: <message>` for an error event in the stream,
 * else `<provider>: <message>`. The SDK's typed error is kept as `cause`; an abort is rethrown as is.
 */
export function providerError(
  provider: string,
  error: unknown,
  sdk: {
    APIError: abstract new (...args: never[]) => Error
    APIUserAbortError: abstract new (...args: never[]) => Error
  },
): unknown {
  if (error instanceof sdk.APIUserAbortError || !(error instanceof Error)) return error
  if (error instanceof sdk.APIError) {
    const { status, error: body } = error as Error & { status?: number; error?: unknown }
    if (status !== undefined) return new Error(`${provider}: HTTP ${error.message}`, { cause: error })
    const inner = (body as { error?: { type?: unknown; message?: unknown } } | undefined)?.error
    if (typeof inner?.type === 'string' && typeof inner.message === 'string')
      return new Error(`${provider}: ${inner.type}: ${inner.message}`, { cause: error })
  }
  return new Error(`${provider}: ${error.message}`, { cause: error })
}
