/**
 * `@toolmark/offline-agent`: a deterministic, offline demo agent for Toolmark pages. It reads the
 * page's manifest (tool titles and descriptions) and the user's words, picks a tool, fetches its
 * input schema with `page_describe`, fills the input from the message, calls `page_call`, and
 * answers in plain words. It needs no model, key or network, and knows no tool names.
 */

import { OfflineProvider, type OfflineProviderOptions } from './embedded.ts'

export { chunkText, OfflineProvider, type OfflineProviderOptions, plan } from './embedded.ts'

export { parseToolContent } from './reply.ts'
export type { AgentMessage, LlmTool, Provider, ProviderEvent, ProviderRequest, ToolCall } from './types.ts'

/** @deprecated The former name of {@link OfflineProvider}; it will be removed in 1.0. */
export class EmbeddedProvider extends OfflineProvider {}
/** @deprecated The former name of {@link OfflineProviderOptions}; it will be removed in 1.0. */
export type EmbeddedProviderOptions = OfflineProviderOptions
