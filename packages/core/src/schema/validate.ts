import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Issue } from '../types.ts'

/**
 * Maps Standard Schema issues (zod, valibot, ArkType, `fromJsonSchema`) to Toolmark's `Issue`s: the
 * path's segments (property keys or `{ key }` objects) are joined with `.` (`cards.0.cvc`); no path
 * is the root `''`. A symbol key is written as its description. Messages are kept as they are.
 */
export function toIssues(issues: readonly StandardSchemaV1.Issue[]): Issue[] {
  const out: Issue[] = new Array(issues.length)
  for (let i = 0; i < issues.length; i++) {
    const issue = issues[i] as StandardSchemaV1.Issue
    out[i] = { path: issue.path === undefined ? '' : joinPath(issue.path), message: String(issue.message) }
  }
  return out
}

function joinPath(path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment>): string {
  let out = ''
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment
    const text = typeof key === 'symbol' ? (key.description ?? '') : String(key)
    out = i === 0 ? text : `${out}.${text}`
  }
  return out
}
