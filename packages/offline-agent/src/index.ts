/**
 * `@toolmark/offline-agent`: a deterministic, offline demo agent for Toolmark pages. It reads the
 * page's manifest (tool titles and descriptions) and the user's words, picks a tool, fetches its
 * input schema with `page_describe`, fills the input from the message, calls `page_call`, and
 * answers in plain words. It needs no model, key or network, and knows no tool names.
 */

export { chunkText, EmbeddedProvider, type EmbeddedProviderOptions, plan } from './embedded.ts'
export { parseToolContent } from './reply.ts'
export type { AgentMessage, LlmTool, Provider, ProviderEvent, ProviderRequest, ToolCall } from './types.ts'
