import type { ToolResult } from '@toolmark/core'
import { joinPaths, maskAtPaths, maskText, maskValue } from '../shared/redact.ts'

/**
 * What crosses Redis is masked as the database's copy is. Two things cross unmasked, each only until the
 * receiving instance handled it (then its entry is deleted): a call on its way to the instance holding the
 * page (the page runs the tool with the real input), and a describe's answer (a tool's definition from the
 * page's code; the waiting instance reads its `writeOnly` fields to learn the sensitive paths).
 */

/**
 * A call's result as it may cross Redis to the instance that waits for it: values under secret-looking
 * keys become `[redacted]`, card numbers and CVCs after a keyword are masked, and `secrets` (the call's
 * input values at the tool's sensitive paths, when this instance knows them) are cut out.
 */
export function maskResult(result: ToolResult, secrets: readonly string[] = []): ToolResult {
  return maskValue(result, { secrets }) as ToolResult
}

/** What {@link maskPost} needs to know of the call a POSTed `result` or `confirmed` answers. */
export interface PostedCall {
  /** True when the call is a describe: its answer crosses unmasked. */
  describe?: boolean
  /** The call's input values at the tool's sensitive paths, when this instance knows them. */
  secrets: readonly string[]
}

/** How {@link maskPost} learns of the call a POSTed message answers: by call id, or by confirmId. */
export interface PostedCalls {
  call(id: string): Promise<PostedCall>
  confirm(confirmId: string): PostedCall
}

/**
 * A page message POSTed to this instance for another instance's page stream, as it may cross Redis: the
 * tool result of a `result` (unless it answers a describe) or of a `confirmed` is masked with
 * {@link maskResult}; a `progress`'s message and data, and a `context`'s entries (each value cut at the entry's
 * sensitive paths first), are masked as the stored copies are; a text that is not JSON, or not an object, is
 * masked as free text. A manifest, `changed` and an `extensions` offer carry the page's tool definitions and
 * names and cross as they came; any other message is masked whole. The stream's instance checks the message as
 * it checks any other. `parsed`: the body already parsed (it is not parsed again).
 */
export async function maskPost(body: string, calls: PostedCalls, parsed?: unknown): Promise<string> {
  let message: Record<string, unknown>
  try {
    message = (parsed === undefined ? JSON.parse(body) : parsed) ?? {}
  } catch {
    return maskText(body)
  }
  if (typeof message !== 'object' || Array.isArray(message)) return maskText(body)
  const type = message.type
  if (type === 'manifest' || type === 'changed' || type === 'extensions') return body
  if (type === 'progress') {
    const call = typeof message.id === 'string' ? await calls.call(message.id) : undefined
    return JSON.stringify(maskValue(message, { secrets: call?.secrets ?? [] }))
  }
  if (type === 'context') {
    const entries = Array.isArray(message.entries) ? message.entries : []
    return JSON.stringify({ ...message, entries: entries.map(maskEntry) })
  }
  if (type !== 'result' && type !== 'confirmed') return JSON.stringify(maskValue(message))
  const call =
    type === 'result' && typeof message.id === 'string'
      ? await calls.call(message.id)
      : type === 'confirmed' && typeof message.confirmId === 'string'
        ? calls.confirm(message.confirmId)
        : undefined
  if (call?.describe) return body
  return JSON.stringify({ ...message, result: maskResult(message.result as ToolResult, call?.secrets) })
}

/** A context entry as it may cross Redis: its value cut at its sensitive paths, then masked whole. */
function maskEntry(entry: unknown): unknown {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return maskValue(entry)
  const { value, ...rest } = entry as Record<string, unknown>
  const paths = joinPaths(
    Array.isArray(rest.sensitivePaths)
      ? rest.sensitivePaths.filter((p): p is string => typeof p === 'string')
      : [],
  )
  return maskValue({ ...rest, ...('value' in entry ? { value: maskAtPaths(value, paths) } : {}) })
}
