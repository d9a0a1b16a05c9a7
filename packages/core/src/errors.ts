import type { ToolmarkErrorCode } from './codes.ts'

/** Thrown for misconfiguration in development, and by path helpers and `ctx.files`. */
export class ToolmarkError extends Error {
  override readonly name = 'ToolmarkError'
  readonly code: ToolmarkErrorCode

  constructor(code: ToolmarkErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

/** True when `value` is a `ToolmarkError` (optionally with this code). */
export function isToolmarkError(value: unknown, code?: ToolmarkErrorCode): value is ToolmarkError {
  return value instanceof ToolmarkError && (code === undefined || value.code === code)
}
