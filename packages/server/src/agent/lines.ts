import type { ToolResult } from '@toolmark/core'

/** The first array in ok data (the data itself, or its first array-valued property). */
export function firstArray(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data
  if (typeof data !== 'object' || data === null) return undefined
  for (const value of Object.values(data)) if (Array.isArray(value)) return value
  return undefined
}

/**
 * The short, human-readable chat line for a tool outcome, e.g.
 * `page_call challenges.search → ok (3 results)`. It never includes input values, and result
 * details only as the page sent them (the page already redacts sensitive fields).
 */
export function toolLine(
  prefix: string,
  tool: string,
  outcome: { result: ToolResult; timedOut: boolean },
  summary?: string,
): string {
  const head = `${prefix} ${tool}${summary ? ` (${summary})` : ''} → `
  if (outcome.timedOut) return `${head}timeout`
  const r = outcome.result
  switch (r.status) {
    case 'ok': {
      const list = firstArray(r.data)
      return `${head}ok${list ? ` (${list.length} result${list.length === 1 ? '' : 's'})` : ''}`
    }
    case 'needs_confirmation':
      return `${head}needs_confirmation: ${r.summary}`
    case 'invalid':
      return `${head}invalid (${r.issues.map((i) => i.path || 'input').join(', ')})`
    case 'refused':
      return `${head}refused ${r.code}`
    case 'cancelled':
      return `${head}cancelled ${r.by}`
    case 'error':
      return `${head}error: ${r.message}`
  }
}
