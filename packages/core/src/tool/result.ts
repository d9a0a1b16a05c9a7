import { REFUSED_CODE_MESSAGES, type RefusedCode, TOOL_FAILED_MESSAGE } from '../codes.ts'
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

/** The registry (or a tool) refuses. `rev` only accompanies `unknown_tool` and `stale` (ignored otherwise). */
export function refused(
  code: RefusedCode,
  message: string = REFUSED_CODE_MESSAGES[code],
  rev?: number,
): RefusedResult {
  return rev === undefined || (code !== 'unknown_tool' && code !== 'stale')
    ? { status: 'refused', code, message }
    : { status: 'refused', code, message, rev }
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
const BY = new Set(['operator', 'signal', 'policy'])

/**
 * True when `value` is exactly one of the result shapes a tool may return (docs/protocol/v1.md, Tool results),
 * with no extra properties: anything else would fail the protocol's own validation downstream.
 */
export function isRunResult(value: unknown): value is ToolResult {
  if (!isToolResult(value)) return false
  const r = value as unknown as Record<string, unknown>
  const keys = Object.keys(r)
  const only = (...allowed: string[]): boolean => keys.every((k) => allowed.includes(k))
  switch (r.status) {
    case 'ok':
      return only('status', 'data')
    case 'invalid':
      return (
        only('status', 'issues') &&
        Array.isArray(r.issues) &&
        r.issues.every(
          (i) =>
            i !== null &&
            typeof i === 'object' &&
            typeof i.path === 'string' &&
            typeof i.message === 'string',
        )
      )
    case 'refused':
      return (
        only('status', 'code', 'message', 'rev') &&
        Object.hasOwn(REFUSED_CODE_MESSAGES, r.code as string) &&
        typeof r.message === 'string' &&
        (r.rev === undefined ||
          ((r.code === 'unknown_tool' || r.code === 'stale') && Number.isInteger(r.rev)))
      )
    case 'cancelled':
      return only('status', 'by') && BY.has(r.by as string)
    case 'error':
      return only('status', 'message') && typeof r.message === 'string'
    default:
      return false
  }
}

/** True when `value` looks like a `ToolResult` (has a known `status`). */
export function isToolResult(value: unknown): value is ToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    STATUSES.has((value as { status?: unknown }).status as string)
  )
}

/** `error "Tool failed"`: a tool, validator, summary, snapshot or confirm handler threw. */
export const TOOL_FAILED: ToolResult = Object.freeze(error(TOOL_FAILED_MESSAGE))
