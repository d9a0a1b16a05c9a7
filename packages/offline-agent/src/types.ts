/** The model contract the offline provider implements: defined once in `@toolmark/protocol`. */
export type {
  AgentMessage,
  LlmTool,
  Provider,
  ProviderEvent,
  ProviderRequest,
  ToolCall,
} from '@toolmark/protocol'
