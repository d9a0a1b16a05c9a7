import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ToolResult } from '@toolmark/core'
import { UNTRUSTED_NOTE } from '@toolmark/protocol'

const ERROR_STATUSES = new Set(['refused', 'invalid', 'error'])

/** The ToolResult as MCP content: structured, a text rendering, isError for refused/invalid/error. */
export function mcpResult(result: ToolResult, untrusted: boolean): CallToolResult {
  const json = JSON.stringify(result)
  const out: CallToolResult = {
    content: [{ type: 'text', text: untrusted ? `${UNTRUSTED_NOTE}\n${json}` : json }],
    structuredContent: result as unknown as Record<string, unknown>,
    isError: ERROR_STATUSES.has(result.status),
  }
  if (untrusted) out._meta = { 'toolmark/untrustedContent': true }
  return out
}

/** An MCP error result with one line of text for the client. */
export function errorText(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}
