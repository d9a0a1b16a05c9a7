import { REFUSED_MESSAGES, type RefusedCode } from '../codes.ts'
import type {
  CancelledBy,
  CancelledResult,
  ErrorResult,
  InvalidResult,
  Issue,
  OkResult,
  RefusedResult,
  ToolResult,
} from '../types.ts'

/** A successful result; omit `data` for "no value". */
export function ok(): OkResult<never>
export function ok<T>(data: T): OkResult<T>
export function ok<T>(...args: [] | [T]): OkResult<T> {
  return args.length === 0 ? { status: 'ok' } : { status: 'ok', data: args[0] as T }
}

/** Validation failed: one issue per problem, `path` dot-joined (`''` for the root). */
export function invalid(issues: Issue[] | string): InvalidResult {
  return { status: 'invalid', issues: typeof issues === 'string' ? [{ path: '', message: issues }] : issues }
}

/** The registry (or a tool) refuses. `rev` only accompanies `unknown_tool` and `stale`. */
export function refused(
  code: RefusedCode,
  message: string = REFUSED_MESSAGES[code],
  rev?: number,
): RefusedResult {
  return rev === undefined ? { status: 'refused', code, message } : { status: 'refused', code, message, rev }
}

/** The call was cancelled by the operator, a signal, or policy. */
export function cancelled(by: CancelledBy): CancelledResult {
  return { status: 'cancelled', by }
}

/** A generic failure; keep `message` free of details (they belong in error events). */
export function error(message: string): ErrorResult {
  return { status: 'error', message }
}

const STATUSES = new Set(['ok', 'invalid', 'refused', 'needs_confirmation', 'cancelled', 'error'])

/** True when `value` looks like a `ToolResult` (has a known `status`). */
export function isToolResult(value: unknown): value is ToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    STATUSES.has((value as { status?: unknown }).status as string)
  )
}
