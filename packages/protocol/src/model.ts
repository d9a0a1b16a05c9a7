import type { ToolManifestSummary } from './manifest.ts'

/*
 * The model contract: what an agent loop hands a model and what it gets back. One definition for the
 * server (`@toolmark/server`), the offline agent (`@toolmark/offline-agent`) and the docs, so a
 * provider written for one works with the other.
 */

/** A tool as handed to a model: the shape of the protocol's copyable definitions (`page_call`, `page_describe`). */
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
  /** The tool called (`page_call`, `page_describe`, or a tool the chat client offered). */
  name: string
  /** The call's input. */
  input: unknown
}

/**
 * The provider-neutral conversation an agent loop keeps. A `tool` message answers one tool call
 * (`toolCallId`); when it carries `confirmId` it is the outcome of a deferred confirmation that
 * references the original call.
 */
export type AgentMessage =
  | {
      role: 'user'
      text: string
      /**
       * True for page data the server puts in the conversation (the page's readable context): a provider sends
       * it in the user's role, but it is not the user's words.
       */
      pageData?: true
    }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; confirmId?: string }

/** What a provider streams back for one model turn: text as it comes, then each tool call whole. */
export type ProviderEvent = { type: 'text'; delta: string } | { type: 'tool_call'; call: ToolCall }

/** One model request: the system prompt, the conversation and the tools offered (maybe none). */
export interface ProviderRequest {
  /** The system prompt. */
  system: string
  /** The conversation so far, oldest first. */
  messages: readonly AgentMessage[]
  /** The tools offered; none means the turn only answers in text. */
  tools: readonly LlmTool[]
  /** Aborts the turn. */
  signal?: AbortSignal
  /**
   * The page's manifest entries behind `page_call` (titles included). Model APIs get only `tools`;
   * the offline agent reads the titles here to describe the page in plain words.
   */
  manifest?: readonly ToolManifestSummary[]
}

/** A model behind an agent loop: messages and tools in, streamed text and tool calls out. */
export interface Provider {
  /** The provider's name (`'anthropic'`, `'openai'`, `'embedded'`, ...). */
  readonly name: string
  /** Streams one assistant turn. Throws (or the iterator rejects) on transport or API errors. */
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>
}
