import type { ToolManifestSummary } from '@toolmark/core'

/** A tool definition as handed to a model: the shape of the protocol's copyable definitions (docs/protocol/v1.md, LLM exposure). */
export interface LlmTool {
  name: string
  description: string
  input_schema: Record<string, unknown>
}

/** One tool call the model made. `id` is the provider's tool-call id (not a protocol call id). */
export interface ToolCall {
  id: string
  name: string
  input: unknown
}

/**
 * The provider-neutral conversation the agent loop keeps. A `tool` message answers one tool call
 * (`toolCallId`); when it carries `confirmId` it is the outcome of a deferred confirmation that
 * references the original call (docs/protocol/v1.md, Deferred confirmation).
 */
export type AgentMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; confirmId?: string }

/** What a provider streams back for one model turn. */
export type ProviderEvent = { type: 'text'; delta: string } | { type: 'tool_call'; call: ToolCall }

/** One model request: the system prompt, the conversation and the tools offered (maybe none). */
export interface ProviderRequest {
  system: string
  messages: readonly AgentMessage[]
  tools: readonly LlmTool[]
  signal?: AbortSignal
  /**
   * The page's manifest entries behind `page_call` (titles included). Model APIs get only `tools`;
   * the offline agent (`@toolmark/offline-agent`) reads the titles here to describe the page in plain words.
   */
  manifest?: readonly ToolManifestSummary[]
}

/**
 * A model behind the agent loop: messages and tools in, streamed text and tool calls out.
 * `@toolmark/offline-agent` writes these types out (it depends on no server); `createProvider`
 * returning its provider as a `Provider` checks at compile time that the two still match.
 */
export interface Provider {
  readonly name: string
  /** Streams one assistant turn. Throws (or the iterator rejects) on transport or API errors. */
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>
}
