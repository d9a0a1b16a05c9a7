import type { ToolManifestSummary } from '@toolmark/core'

/*
 * The provider interface of an agent loop, as the reference agent server (apps/agent-server) and
 * its Anthropic and OpenAI providers define it: written out here so this package depends on no
 * server. A server whose types have this shape takes the offline provider as any other provider.
 */

/** A tool definition as handed to a model: the protocol's copyable definition (`page_call`, `page_describe`). */
export interface LlmTool {
  /** The tool's model-facing name. */
  name: string
  /** What the tool does, for the model. */
  description: string
  /** Its input as a JSON Schema. */
  input_schema: Record<string, unknown>
}

/** One tool call the model made. */
export interface ToolCall {
  /** The provider's tool-call id (not a protocol call id). */
  id: string
  /** The tool called (`page_call`, `page_describe`). */
  name: string
  /** The call's input. */
  input: unknown
}

/**
 * The provider-neutral conversation: a `tool` message answers one tool call (`toolCallId`); with
 * `confirmId` it is the outcome of a deferred confirmation that references the original call.
 */
export type AgentMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; confirmId?: string }

/** What a provider streams back for one model turn. */
export type ProviderEvent = { type: 'text'; delta: string } | { type: 'tool_call'; call: ToolCall }

/** One model request: the system prompt, the conversation and the tools offered (maybe none). */
export interface ProviderRequest {
  /** The system prompt (the offline model does not read it). */
  system: string
  /** The conversation so far, oldest first. */
  messages: readonly AgentMessage[]
  /** The tools offered; none means the turn only answers in text. */
  tools: readonly LlmTool[]
  /** Aborts the turn. */
  signal?: AbortSignal
  /** The page's manifest entries behind `page_call` (titles included), to describe the page in plain words. */
  manifest?: readonly ToolManifestSummary[]
}

/** A model behind an agent loop: messages and tools in, streamed text and tool calls out. */
export interface Provider {
  /** The provider's name (`'embedded'`). */
  readonly name: string
  /** Streams one assistant turn. */
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>
}
