import { type ConfirmQueue, createConfirmQueue, type ToolmarkConsumer } from '@toolmark/core'
import { webmcp } from '@toolmark/core/webmcp'

/** Agents outside the app: the browser's WebMCP agent and desktop MCP clients (paired on demand). */
export interface ExternalAgents {
  /** Their calls confirm inline: pass `queue.handler` as `createToolmark({ confirm })`. */
  queue: ConfirmQueue
  /** Attached for the whole page load: `webmcp()` (inert where the browser has no WebMCP). */
  consumers: ToolmarkConsumer[]
}

/** `queue` is the registry's inline confirmation queue, shared with the page's tours. */
export function createExternalAgents(queue: ConfirmQueue = createConfirmQueue()): ExternalAgents {
  return { queue, consumers: [webmcp()] }
}
