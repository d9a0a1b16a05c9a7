import type { ToolResult } from '@toolmark/core'
import { maskText, maskValue } from '../shared/redact.ts'

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
 * {@link maskResult}; a text that is not JSON, or not an object, is masked as free text. Other messages (a manifest,
 * `changed`) carry the page's tool definitions and cross as they came. The stream's instance checks the
 * message as it checks any other.
 */
export async function maskPost(body: string, calls: PostedCalls): Promise<string> {
  let message: { type?: unknown; id?: unknown; confirmId?: unknown; result?: unknown }
  try {
    message = JSON.parse(body) ?? {}
  } catch {
    return maskText(body)
  }
  if (message.type !== 'result' && message.type !== 'confirmed')
    return typeof message === 'object' ? body : maskText(body)
  const call =
    message.type === 'result' && typeof message.id === 'string'
      ? await calls.call(message.id)
      : message.type === 'confirmed' && typeof message.confirmId === 'string'
        ? calls.confirm(message.confirmId)
        : undefined
  if (call?.describe) return body
  return JSON.stringify({ ...message, result: maskResult(message.result as ToolResult, call?.secrets) })
}
