import { REFUSED_CODE_MESSAGES } from '../codes.ts'
import { refused } from '../tool/result.ts'
import type { ToolResult } from '../types.ts'
import type { CallHost } from './host.ts'

/**
 * The answer to a call whose tool is not there (or went away before its handler started): `stale`
 * when the call carried a revision older than the tool's disappearance, else `unknown_tool`; both
 * with the current revision.
 */
export function gone(
  host: Pick<CallHost, 'rev' | 'wentStale'>,
  name: string,
  rev: number | undefined,
): ToolResult {
  return host.wentStale(name, rev)
    ? refused('stale', REFUSED_CODE_MESSAGES.stale, host.rev)
    : unknownTool(host)
}

/** `unknown_tool` with the current revision. */
export function unknownTool(host: Pick<CallHost, 'rev'>): ToolResult {
  return refused('unknown_tool', REFUSED_CODE_MESSAGES.unknown_tool, host.rev)
}
